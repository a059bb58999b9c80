package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.idem.runtime.Dialect;
import dev.idem.testing.CountingDataSource;
import java.util.ArrayList;
import java.util.List;

/**
 * What idem sends to open and end its own transactions, for the statement-count tests: on MariaDB, where the pool
 * lends connections in auto-commit mode, a {@code START TRANSACTION} and a {@code COMMIT} statement each
 * (see {@link SqlDialect#opensTransactionsWithStatement()}); elsewhere {@code setAutoCommit} and {@code commit()}
 * calls, no statements.
 */
final class OwnTransactionStatements {

  private OwnTransactionStatements() {}

  static boolean byStatement(Dialect dialect) {
    return SqlDialect.of(dialect).opensTransactionsWithStatement();
  }

  /** Statements for {@code transactions} committed transactions of idem's own. */
  static long statementsFor(Dialect dialect, int transactions) {
    return byStatement(dialect) ? 2L * transactions : 0;
  }

  /** {@code commit()} calls for {@code transactions} committed transactions of idem's own. */
  static long commitCallsFor(Dialect dialect, int transactions) {
    return byStatement(dialect) ? 0 : transactions;
  }

  /**
   * Asserts that the executed statements hold exactly {@code transactions} transactions opened by statement and
   * committed by statement, in order, the last statement being a COMMIT (MariaDB); elsewhere none at all.
   */
  static void assertCommitted(CountingDataSource counting, Dialect dialect, int transactions) {
    List<String> control = new ArrayList<>();
    for (String sql : counting.executedSql()) {
      if (sql != null && (sql.equals("START TRANSACTION") || sql.equals("COMMIT") || sql.equals("ROLLBACK"))) {
        control.add(sql);
      }
    }
    List<String> expected = new ArrayList<>();
    if (byStatement(dialect)) {
      for (int i = 0; i < transactions; i++) {
        expected.add("START TRANSACTION");
        expected.add("COMMIT");
      }
    }
    assertEquals(expected, control, "transaction statements in " + counting.executedSql());
    if (byStatement(dialect) && transactions > 0) {
      List<String> all = counting.executedSql();
      assertEquals("COMMIT", all.get(all.size() - 1), "the commit is the last statement: " + all);
    }
  }
}
