package dev.idem.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@link BatchStatements#collectKeys}: which keys a batch claimed comes only from the RETURNING rows, so a driver
 * that inserted rows without returning them must fail the batch, never let it treat its own claims as duplicates
 * (their messages would be skipped for good).
 */
class BatchClaimKeysTest {

  @Test
  void insertedRowsWithoutReturnedKeysFailTheClaim() {
    PreparedStatement claim = statement(false, 2);
    Set<String> inserted = new HashSet<>();
    SQLException e = assertThrows(SQLException.class, () -> BatchStatements.collectKeys(claim, inserted));
    assertTrue(e.getMessage().contains("inserted 2 rows but the driver returned no RETURNING rows"), e.getMessage());
    assertTrue(inserted.isEmpty());
  }

  @Test
  void noRowsInsertedAndNoneReturnedIsAllDuplicates() throws SQLException {
    Set<String> inserted = new HashSet<>();
    BatchStatements.collectKeys(statement(false, 0), inserted);
    assertEquals(Set.of(), inserted);
  }

  /** A statement whose execute() returns {@code resultSet} and whose update count is {@code updateCount}. */
  private static PreparedStatement statement(boolean resultSet, int updateCount) {
    return (PreparedStatement) Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
        new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> switch (method.getName()) {
          case "execute" -> resultSet;
          case "getUpdateCount" -> updateCount;
          default -> throw new UnsupportedOperationException(method.getName());
        });
  }
}
