package dev.idem.di;

import dev.idem.runtime.IdemRuntime;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The user's implementation, injected with the runtime like any other dependency. It writes through idem's
 * connection, so that the deposit and idem's record commit together.
 */
public class JdbcAccounts implements Accounts {

  private final IdemRuntime runtime;

  @Inject
  public JdbcAccounts(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  public long deposit(String requestId, String account, long amountCents) {
    Connection connection = runtime.currentConnection();
    try (PreparedStatement update = connection.prepareStatement(
             "UPDATE balances SET cents = cents + ? WHERE account = ?");
         PreparedStatement log = connection.prepareStatement(
             "INSERT INTO deposits (request_id, account, cents) VALUES (?, ?, ?)")) {
      update.setLong(1, amountCents);
      update.setString(2, account);
      if (update.executeUpdate() != 1) {
        throw new IllegalArgumentException("no account " + account);
      }
      log.setString(1, requestId);
      log.setString(2, account);
      log.setLong(3, amountCents);
      log.executeUpdate();
      return read(connection, account);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public long balance(String account) {
    return runtime.inTransaction(connection -> read(connection, account));
  }

  private static long read(Connection connection, String account) throws SQLException {
    try (PreparedStatement select = connection.prepareStatement("SELECT cents FROM balances WHERE account = ?")) {
      select.setString(1, account);
      try (ResultSet row = select.executeQuery()) {
        row.next();
        return row.getLong(1);
      }
    }
  }
}
