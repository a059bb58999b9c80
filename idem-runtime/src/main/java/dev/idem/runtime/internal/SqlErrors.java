package dev.idem.runtime.internal;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** Helpers for looking at SQLExceptions. */
final class SqlErrors {

  private SqlErrors() {}

  /**
   * The exception, its SQLException causes and chained "next" exceptions: drivers and pools put the
   * informative SQLState on either.
   */
  static List<SQLException> chain(SQLException e) {
    List<SQLException> chain = new ArrayList<>(2);
    for (Throwable t = e; t instanceof SQLException s && !chain.contains(s); t = t.getCause()) {
      chain.add(s);
      SQLException next = s.getNextException();
      if (next != null && !chain.contains(next)) {
        chain.add(next);
      }
    }
    return chain;
  }
}
