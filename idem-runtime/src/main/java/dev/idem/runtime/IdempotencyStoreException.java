package dev.idem.runtime;

import java.sql.SQLException;

/** A statement idem itself issued against its table failed (wraps the {@link SQLException}). */
public class IdempotencyStoreException extends IdempotencyException {

  private static final long serialVersionUID = 1L;

  /**
   * @param message what idem was doing
   * @param cause the database failure
   */
  public IdempotencyStoreException(String message, SQLException cause) {
    super(message + ": " + cause.getMessage() + " (SQLState " + cause.getSQLState()
        + ", vendor code " + cause.getErrorCode() + ")", cause);
  }

  @Override
  public synchronized SQLException getCause() {
    return (SQLException) super.getCause();
  }
}
