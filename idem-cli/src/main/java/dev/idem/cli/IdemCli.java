package dev.idem.cli;

import dev.idem.runtime.IdempotencyStoreException;
import io.lettuce.core.RedisException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code idem}: the operator command line for idem's table. The root command only prints usage; the subcommands
 * adapt the runtime's operator API ({@code IdemAdmin}) and hold no SQL. Data goes to stdout (a table, or JSON with
 * {@code --json}), diagnostics to stderr, and the exit code says what happened ({@link ExitCodes}).
 *
 * <p>Tests run it in-process through {@link #getCommandLine(PrintWriter, PrintWriter, Map)}.
 */
@Command(name = "idem", mixinStandardHelpOptions = true, versionProvider = IdemCli.Version.class,
    description = "Operator commands for idem's table (idem_record): look at a key, settle an OUTCOME_UNKNOWN record,"
        + " purge, count. Connection options go before or after the command.",
    subcommands = {InspectCommand.class, ForgetCommand.class, ResolveCommand.class, PurgeCommand.class, PartitionsCommand.class,
        StatsCommand.class, InFlightCommand.class},
    footer = {"", "Environment: IDEM_URL, IDEM_USER, IDEM_PASSWORD, IDEM_TABLE, IDEM_REDIS, IDEM_REDIS_PREFIX stand"
        + " in for the options.",
        "With --redis URI, inspect, inflight, forget and resolve work on the records of store = Store.REDIS commands.",
        "",
        "@|bold Exit codes|@: 0 found/done, 1 no such record, 2 usage, 3 database or Redis error,",
        "  4 resolve: the result does not fit the command's result type, 5 resolve/release: the record's outcome",
        "  is not unknown (nothing changed), 70 unexpected error"})
public final class IdemCli implements Runnable {

  /** An error no command expects (a defect): the message, and the stack trace with --verbose. */
  public static final int INTERNAL_ERROR = 70;

  @Mixin
  ConnectionOptions connection;

  @Spec
  CommandSpec spec;

  private final Map<String, String> environment;
  /** The session of the command running, so that errors mask its password. */
  private Session current;

  private IdemCli(Map<String, String> environment) {
    this.environment = Map.copyOf(environment);
  }

  /**
   * Runs the CLI and exits with its code.
   *
   * @param args the command line
   */
  public static void main(String[] args) {
    // The CLI reports a failed statement itself (one line on stderr); MariaDB Connector/J would also log it there.
    if (System.getProperty("mariadb.logging.disable") == null) {
      System.setProperty("mariadb.logging.disable", "true");
    }
    // Lettuce (--redis) logs through SLF4J, which the jar has no binding for: without these, every --redis run
    // starts with three lines on stderr saying so. Errors reach the operator through the CLI's own message.
    if (System.getProperty("slf4j.provider") == null) {
      System.setProperty("slf4j.provider", "org.slf4j.helpers.NOP_FallbackServiceProvider");
      System.setProperty("slf4j.internal.verbosity", "WARN");
    }
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    int code = getCommandLine(out, err, System.getenv()).execute(args);
    out.flush();
    err.flush();
    System.exit(code);
  }

  /**
   * The command line writing to {@code out} and {@code err}, with the process's environment.
   *
   * @param out where data goes
   * @param err where diagnostics go
   * @return the command line; {@code execute(args)} returns the exit code
   */
  public static CommandLine getCommandLine(PrintWriter out, PrintWriter err) {
    return getCommandLine(out, err, System.getenv());
  }

  /**
   * The command line writing to {@code out} and {@code err}, with the given environment (tests pass their own).
   *
   * @param out where data goes
   * @param err where diagnostics go
   * @param environment the variables IDEM_URL, IDEM_USER, IDEM_PASSWORD, IDEM_TABLE are read from
   * @return the command line; {@code execute(args)} returns the exit code
   */
  public static CommandLine getCommandLine(PrintWriter out, PrintWriter err, Map<String, String> environment) {
    IdemCli cli = new IdemCli(environment);
    CommandLine commandLine = new CommandLine(cli);
    commandLine.setOut(out);
    commandLine.setErr(err);
    commandLine.setExecutionExceptionHandler((exception, failed, parsed) -> cli.failed(exception, failed));
    return commandLine;
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing a command: inspect, forget, resolve, purge,"
        + " partitions, stats or inflight");
  }

  Map<String, String> environment() {
    return environment;
  }

  void current(Session session) {
    this.current = session;
  }

  /** The one handler of every exception a command throws: a message on stderr, the exit code. */
  private int failed(Exception exception, CommandLine failed) {
    PrintWriter err = failed.getErr();
    boolean verbose = current != null ? current.options().verbose() : connection.verbose;
    String password = current == null ? null : current.options().password();
    String redisPassword = current == null ? null : current.options().redisPassword();
    int code;
    String message;
    if (exception instanceof CliException expected) {
      code = expected.exitCode();
      message = expected.getMessage();
    } else if (exception instanceof RedisException) {
      code = ExitCodes.DATABASE;
      message = "Redis error: " + describe(exception);
    } else if (exception instanceof IdempotencyStoreException || causedBySql(exception)) {
      code = ExitCodes.DATABASE;
      message = "database error: " + describe(exception);
    } else if (exception instanceof IllegalStateException && exception.getMessage() != null
        && exception.getMessage().startsWith("idem does not know the database")) {
      code = ExitCodes.DATABASE;
      message = exception.getMessage();
    } else {
      code = INTERNAL_ERROR;
      message = "unexpected error: " + exception + (verbose ? "" : " (--verbose shows where)");
    }
    err.println("idem " + failed.getCommandName() + ": "
        + Secrets.mask(Secrets.mask(message, redisPassword), password));
    if (verbose) {
      StringBuilderWriter trace = new StringBuilderWriter();
      exception.printStackTrace(trace.printWriter());
      err.print(Secrets.mask(Secrets.mask(trace.toString(), redisPassword), password));
    }
    err.flush();
    return code;
  }

  private static boolean causedBySql(Throwable exception) {
    for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
      if (cause instanceof SQLException) {
        return true;
      }
    }
    return false;
  }

  /** The exception's message and its causes' (the driver's words), without class names. */
  private static String describe(Throwable exception) {
    StringBuilder text = new StringBuilder(String.valueOf(exception.getMessage()));
    String last = exception.getMessage();
    for (Throwable cause = exception.getCause(); cause != null; cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && !message.equals(last) && (last == null || !last.contains(message))) {
        text.append(": ").append(message.strip());
        last = message;
      }
    }
    return text.toString();
  }

  /** A PrintWriter over a string, for a stack trace that is masked before it is printed. */
  private static final class StringBuilderWriter {
    private final java.io.StringWriter text = new java.io.StringWriter();

    PrintWriter printWriter() {
      return new PrintWriter(text);
    }

    @Override
    public String toString() {
      return text.toString();
    }
  }

  /** The version in the jar's manifest. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = IdemCli.class.getPackage().getImplementationVersion();
      return new String[] {"idem " + (version == null ? "(version unknown: not run from its jar)" : version)};
    }
  }
}
