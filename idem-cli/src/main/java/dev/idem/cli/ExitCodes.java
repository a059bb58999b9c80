package dev.idem.cli;

/** The exit codes scripts test, in one place (also listed in every command's help). */
public final class ExitCodes {

  /** The record was found, the operation done. */
  public static final int OK = 0;
  /** No such record (inspect, forget, resolve, release). */
  public static final int NOT_FOUND = 1;
  /** The command line is wrong (unknown option, missing argument, no manifest for the scope, ...). */
  public static final int USAGE = 2;
  /** The database could not be reached or a statement failed. */
  public static final int DATABASE = 3;
  /** resolve: the result does not fit the command's result type (the message names the property). */
  public static final int RESULT_REFUSED = 4;
  /** resolve, release: the record is not OUTCOME_UNKNOWN, so it was left as it is. */
  public static final int WRONG_STATE = 5;

  /** The exit-code list of every command's help. */
  static final String[] HELP = {
      "@|bold Exit codes|@:",
      "  0  found / done",
      "  1  no such record",
      "  2  usage error (also: no manifest describes the scope)",
      "  3  database error (connection, SQL)",
      "  4  resolve: the result does not fit the command's result type",
      "  5  resolve/release: the record's outcome is not unknown; nothing changed"};

  private ExitCodes() {}
}
