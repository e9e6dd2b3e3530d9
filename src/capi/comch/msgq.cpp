// SPDX-License-Identifier: Apache-2.0
//
// C API of doca_comch_msgq.h (DPA message queues: the emulated device has none): argument checks and delegation only.
#include <doca_comch_msgq.h>

#include "capi/comch/checks.hpp"

using namespace softcomch::capi;

extern "C" {

// ---------------------------------------------------------------------------------------------
// MsgQ (DPA message queues)
// ---------------------------------------------------------------------------------------------

doca_error_t doca_comch_msgq_create(struct doca_dev *dev, struct doca_comch_msgq **msgq)
{
    return no_dpa(__func__, dev, msgq);
}
doca_error_t doca_comch_msgq_destroy(struct doca_comch_msgq *msgq)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_set_dpa_consumer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
    return no_dpa(__func__, msgq, dpa);
}
doca_error_t doca_comch_msgq_set_max_num_consumers(struct doca_comch_msgq *msgq, uint32_t)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_set_dpa_producer(struct doca_comch_msgq *msgq, struct doca_dpa *dpa)
{
    return no_dpa(__func__, msgq, dpa);
}
doca_error_t doca_comch_msgq_set_max_num_producers(struct doca_comch_msgq *msgq, uint32_t)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_start(struct doca_comch_msgq *msgq)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_stop(struct doca_comch_msgq *msgq)
{
    return no_dpa(__func__, msgq);
}
doca_error_t doca_comch_msgq_consumer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_consumer **consumer)
{
    return no_dpa(__func__, msgq, consumer);
}
doca_error_t doca_comch_msgq_producer_create(struct doca_comch_msgq *msgq,
                                             struct doca_comch_producer **producer)
{
    return no_dpa(__func__, msgq, producer);
}

} // extern "C"
