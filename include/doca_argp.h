/* SPDX-License-Identifier: Apache-2.0 */
/**
 * @file doca_argp.h
 * @brief DOCA Arg Parser: the command line (and JSON configuration file) of a DOCA program.
 *
 * Usage pattern:
 *
 *     doca_argp_init("doca_my_program", &config);
 *     doca_argp_param_create(&p);                 // one per program flag
 *     doca_argp_param_set_short_name(p, "p");
 *     doca_argp_param_set_long_name(p, "pci-addr");
 *     doca_argp_param_set_description(p, "Device PCI address");
 *     doca_argp_param_set_callback(p, pci_cb);    // pci_cb(value, &config)
 *     doca_argp_param_set_type(p, DOCA_ARGP_TYPE_STRING);
 *     doca_argp_register_param(p);                // argp owns p from here on
 *     doca_argp_start(argc, argv);                // parses, calls the callbacks
 *     ...
 *     doca_argp_destroy();
 *
 * Every program also accepts the DOCA general flags: -h/--help, -v/--version,
 * -l/--log-level <10..70>, --sdk-log-level <10..70> and -j/--json <path>. A JSON file has up to
 * three sections, "doca_dpdk_flags", "doca_general_flags" and "doca_program_flags", whose keys
 * are long flag names.
 *
 * A flag callback receives a pointer to the parsed value, valid only during the call (copy it):
 * STRING: the string itself (char *); INT: int *; BOOLEAN: bool *; DOUBLE: double *;
 * JSON_OBJ: the JSON text of the value (char *).
 *
 * Thread safety: the parser is a process-wide singleton; use it from one thread.
 */
#ifndef DOCA_ARGP_H_
#define DOCA_ARGP_H_

#include <stdarg.h>

#include <doca_compat.h>
#include <doca_error.h>
#include <doca_log.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Flag callback: (pointer to the parsed value, program configuration). */
typedef doca_error_t (*doca_argp_param_cb_t)(void *, void *);

/** @brief Command callback: (program configuration). */
typedef doca_error_t (*doca_argp_cmd_cb_t)(void *);

/** @brief Receives the DPDK part of the command line (argv[0] first) of a DPDK program. */
typedef doca_error_t (*doca_argp_dpdk_cb_t)(int argc, char **argv);

/** @brief Validation callback, called with the program configuration after all flags. */
typedef doca_error_t (*doca_argp_validation_cb_t)(void *);

/** @brief Receives the parser's own messages instead of the default (SDK log) output. */
typedef doca_error_t (*doca_argp_logger_cb_t)(enum doca_log_level level, const char *format, va_list args);

/** @brief Type of a flag's value. */
enum doca_argp_type {
	DOCA_ARGP_TYPE_UNKNOWN = 0, /**< not set (registration fails) */
	DOCA_ARGP_TYPE_STRING,      /**< a string */
	DOCA_ARGP_TYPE_INT,         /**< a decimal int */
	DOCA_ARGP_TYPE_BOOLEAN,     /**< a switch without value */
	DOCA_ARGP_TYPE_JSON_OBJ,    /**< a JSON value, given as its text */
	DOCA_ARGP_TYPE_DOUBLE = 5,  /**< a floating-point number (later DOCA 3.x; SoftComch value) */
};

/** @brief A program flag. Created by doca_argp_param_create(). */
struct doca_argp_param;

/** @brief A program command (sub-command). Created by doca_argp_cmd_create(). */
struct doca_argp_cmd;

/** @brief Prints the usage text (the same as --help) to stdout. */
DOCA_EXPERIMENTAL void doca_argp_usage(void);

/**
 * @brief Initialises the parser.
 * @param [in] program_name name shown in the usage text; NULL: taken from argv[0] at start.
 * @param [in] program_config passed to every callback (may be NULL).
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if already initialised; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_init(const char *program_name, void *program_config);

/**
 * @brief Registers a program flag. The parser owns @p input_param afterwards, also on failure.
 * @param [in] input_param a param from doca_argp_param_create().
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised or the param is already
 * registered; DOCA_ERROR_INITIALIZATION if it lacks a name, description, type or callback;
 * DOCA_ERROR_INVALID_VALUE for NULL, an unknown param or a name already in use.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_param(struct doca_argp_param *input_param);

/**
 * @brief Registers a top-level command. The parser owns @p input_cmd afterwards.
 * @param [in] input_cmd a command from doca_argp_cmd_create().
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised or already registered;
 * DOCA_ERROR_INITIALIZATION if it lacks a name or description; DOCA_ERROR_INVALID_VALUE for
 * NULL, an unknown command or a name already in use.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_cmd(struct doca_argp_cmd *input_cmd);

/**
 * @brief Replaces the default --version output: -v calls @p callback(NULL, program_config) and
 * then exits with EXIT_SUCCESS if it returned DOCA_SUCCESS.
 * @param [in] callback the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_version_callback(doca_argp_param_cb_t callback);

/**
 * @brief Registers the callback doca_argp_start() calls last, with the program configuration.
 * @param [in] callback the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_validation_callback(doca_argp_validation_cb_t callback);

/**
 * @brief Sends the parser's own messages (errors about the command line) to @p callback.
 * @param [in] callback the callback.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised; DOCA_ERROR_ALREADY_EXIST if one
 * is registered; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_register_logger_callback(doca_argp_logger_cb_t callback);

/**
 * @brief Goes back to the default output of the parser's messages (SDK log lines).
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised or no callback is registered.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_disable_logger_callback(void);

/**
 * @brief Parses the command line (and the JSON file given with -j) and calls the callbacks:
 * flags in order (JSON first, then the command line), the DPDK callback, command callbacks,
 * then the validation callback. -h and -v print and exit the process with EXIT_SUCCESS.
 * @param [in] argc argument count.
 * @param [in] argv arguments; argv[0] is the program.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised or already started;
 * DOCA_ERROR_NOT_SUPPORTED for an unknown flag, command or JSON key (the usage is printed);
 * DOCA_ERROR_INVALID_VALUE for a malformed or missing value, a repeated single-use flag or a
 * missing mandatory flag; DOCA_ERROR_IO_FAILED if the JSON file cannot be read or parsed;
 * DOCA_ERROR_NO_MEMORY; or the first error a callback returned.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_start(int argc, char **argv);

/**
 * @brief Frees the parser, its params and commands. doca_argp_init() may be called again.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_destroy(void);

/**
 * @brief Marks the program as a DPDK program: the command line is
 * `prog [DPDK flags] -- [DOCA flags] [program flags]` and @p callback receives the DPDK part.
 * Without "--" every argument is a DPDK flag.
 * @param [in] callback the callback; NULL is refused with a log line.
 */
DOCA_EXPERIMENTAL void doca_argp_set_dpdk_program(doca_argp_dpdk_cb_t callback);

/**
 * @brief Creates a program flag, to be configured by the setters below and registered.
 * @param [out] param the new param; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE if not
 * initialised; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_create(struct doca_argp_param **param);

/**
 * @brief Sets the short name (used as `-name`), e.g. "p". At least one name is required.
 * The setters of a param log and ignore NULL, unknown or already registered params.
 * @param [in] param the param.
 * @param [in] name the name, without the dash; copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_short_name(struct doca_argp_param *param, const char *name);

/**
 * @brief Sets the long name (used as `--name` and as the JSON key), e.g. "pci-addr".
 * @param [in] param the param.
 * @param [in] name the name, without the dashes; copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_long_name(struct doca_argp_param *param, const char *name);

/**
 * @brief Sets the text describing the value in the usage, e.g. "<path>".
 * @param [in] param the param.
 * @param [in] arguments the text; copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_arguments(struct doca_argp_param *param, const char *arguments);

/**
 * @brief Sets the description shown in the usage. Required.
 * @param [in] param the param.
 * @param [in] description the text; copied.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_description(struct doca_argp_param *param, const char *description);

/**
 * @brief Sets the callback that receives the value. Required.
 * @param [in] param the param.
 * @param [in] callback called as callback(value, program_config).
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_callback(struct doca_argp_param *param, doca_argp_param_cb_t callback);

/**
 * @brief Sets the type of the value. Required.
 * @param [in] param the param.
 * @param [in] type the type.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_type(struct doca_argp_param *param, enum doca_argp_type type);

/**
 * @brief Makes the flag mandatory (flags are optional by default).
 * @param [in] param the param.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_mandatory(struct doca_argp_param *param);

/**
 * @brief Accepts the flag on the command line only, not in a JSON file (a flag without a long
 * name is always command-line only).
 * @param [in] param the param.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_cli_only(struct doca_argp_param *param);

/**
 * @brief Lets the flag appear several times (the callback runs once per value; in JSON, give an
 * array). Flags are single-use by default.
 * @param [in] param the param.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_multiplicity(struct doca_argp_param *param);

/**
 * @brief Makes the flag exclusive: when given, no other program flag may be given.
 * @param [in] param the param.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_singular(struct doca_argp_param *param);

/**
 * @brief Makes a command's flag valid in its sub-commands too (by default a flag belongs to its
 * own command only).
 * @param [in] param the param.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_inherited(struct doca_argp_param *param);

/**
 * @brief Leaves the flag out of the usage text (it still works).
 * @param [in] param the param.
 */
DOCA_EXPERIMENTAL void doca_argp_param_set_hidden(struct doca_argp_param *param);

/**
 * @brief Destroys a param that was not registered.
 * @param [in] param the param.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an unknown param;
 * DOCA_ERROR_BAD_STATE if it is registered (the parser owns it).
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_param_destroy(struct doca_argp_param *param);

/**
 * @brief Creates a command: a word on the command line that selects a mode, with its own flags
 * and sub-commands (`prog [flags] cmd [cmd flags] subcmd [subcmd flags]`).
 * @param [out] cmd the new command; written only on success.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL; DOCA_ERROR_BAD_STATE if not
 * initialised; DOCA_ERROR_NO_MEMORY.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_create(struct doca_argp_cmd **cmd);

/**
 * @brief Sets the command's name (the word that selects it). Required.
 * The setters of a command log and ignore NULL, unknown or already registered commands.
 * @param [in] cmd the command.
 * @param [in] name the name; copied.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_name(struct doca_argp_cmd *cmd, const char *name);

/**
 * @brief Sets the description shown in the usage. Required.
 * @param [in] cmd the command.
 * @param [in] description the text; copied.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_description(struct doca_argp_cmd *cmd, const char *description);

/**
 * @brief Sets the callback run (with the program configuration) when the command is selected.
 * Optional.
 * @param [in] cmd the command.
 * @param [in] callback the callback.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_callback(struct doca_argp_cmd *cmd, doca_argp_cmd_cb_t callback);

/**
 * @brief Leaves the command out of the usage text (it still works).
 * @param [in] cmd the command.
 */
DOCA_EXPERIMENTAL void doca_argp_cmd_set_hidden(struct doca_argp_cmd *cmd);

/**
 * @brief Adds a flag to a command. The parser owns @p input_param afterwards, also on failure.
 * @param [in] cmd the command.
 * @param [in] input_param the flag.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised or the param is already
 * registered; DOCA_ERROR_INITIALIZATION if the param lacks a name, description, type or callback;
 * DOCA_ERROR_INVALID_VALUE for NULL, unknown objects or a name already in use.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_register_param(struct doca_argp_cmd *cmd,
							    struct doca_argp_param *input_param);

/**
 * @brief Adds a sub-command to a command. The parser owns @p input_cmd afterwards.
 * @param [in] cmd the parent command.
 * @param [in] input_cmd the sub-command.
 * @return DOCA_SUCCESS; DOCA_ERROR_BAD_STATE if not initialised or @p input_cmd is already
 * registered; DOCA_ERROR_INITIALIZATION if @p input_cmd lacks a name or description;
 * DOCA_ERROR_INVALID_VALUE for NULL, unknown objects, @p cmd == @p input_cmd or a name already
 * in use.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_register_cmd(struct doca_argp_cmd *cmd, struct doca_argp_cmd *input_cmd);

/**
 * @brief Destroys a command that was not registered (with its flags and sub-commands).
 * @param [in] cmd the command.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL or an unknown command;
 * DOCA_ERROR_BAD_STATE if it is registered.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_cmd_destroy(struct doca_argp_cmd *cmd);

/**
 * @brief The application log level given with -l/--log-level (or in the JSON file); without
 * one, the current global lower limit of the application log.
 * @param [out] log_level the level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_log_level(int *log_level);

/**
 * @brief The SDK log level given with --sdk-log-level (or in the JSON file); without one, the
 * current global SDK log limit.
 * @param [out] log_level the level.
 * @return DOCA_SUCCESS; DOCA_ERROR_INVALID_VALUE for NULL.
 */
DOCA_EXPERIMENTAL doca_error_t doca_argp_get_sdk_log_level(int *log_level);

#ifdef __cplusplus
}
#endif

#endif /* DOCA_ARGP_H_ */
