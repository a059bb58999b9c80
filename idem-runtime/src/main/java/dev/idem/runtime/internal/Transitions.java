package dev.idem.runtime.internal;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IllegalStateTransitionException;
import dev.idem.runtime.NoSuchEntityException;
import dev.idem.runtime.TransitionListener;
import dev.idem.runtime.TransitionResult;
import java.lang.System.Logger.Level;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Clock;

/**
 * What generated {@code @StateTransition} methods share: the decision after a guarded update matched no row, the
 * transition log and the {@link TransitionListener}. The guarded update itself is in the generated method. Reached
 * through {@link IdemEngine#transitions()}; application code has no need to call it.
 */
public final class Transitions {

  private static final System.Logger LOG = System.getLogger(IdemRuntime.class.getName());

  /** The transition log's table; its DDL is {@code dev/idem/runtime/schema/transition-log-<dialect>.sql}. */
  public static final String LOG_TABLE = SqlDialect.TRANSITION_LOG_TABLE;

  private final TransactionManager transactions;
  private final String insertLogSql;
  private final Clock clock;
  private final TransitionListener listener;
  private final boolean logAll;

  Transitions(TransactionManager transactions, SqlDialect dialect, Clock clock, TransitionListener listener,
      boolean logAll) {
    this.transactions = transactions;
    this.insertLogSql = dialect.transitionLogInsertSql();
    this.clock = clock;
    this.listener = listener;
    this.logAll = logAll;
  }

  /**
   * @param spec the transition
   * @return whether applying it writes a transition log row: asked for by the transition or by the runtime
   */
  public boolean logs(TransitionSpec spec) {
    return logAll || spec.log();
  }

  /**
   * The guarded update moved the row. Records it in the transition log (same transaction, so it rolls back with
   * it) and tells the listener once the transaction commits.
   *
   * @param spec the transition
   * @param id the entity's id
   * @param from the state left; null if several states lead to the target and it was not read
   * @return {@link TransitionResult#APPLIED}
   * @throws SQLException if the log row cannot be written
   */
  public TransitionResult applied(TransitionSpec spec, Object id, String from) throws SQLException {
    if (logs(spec)) {
      Connection connection = transactions.currentConnection();
      try (PreparedStatement insert = connection.prepareStatement(insertLogSql)) {
        insert.setString(1, spec.name());
        insert.setString(2, spec.entity());
        insert.setString(3, String.valueOf(id));
        insert.setString(4, from);
        insert.setString(5, spec.to());
        insert.setLong(6, clock.millis());
        insert.executeUpdate();
      }
    }
    // The update ran on the JDBC connection: an ORM of the application's transaction must not keep the old row.
    transactions.current().entityChanged(spec.entity(), id);
    transactions.afterCommitOrNow(() -> notify("applied", () -> listener.applied(spec.name(), spec.entity(), id, from,
        spec.to())));
    return TransitionResult.APPLIED;
  }

  /**
   * The guarded update matched no row although the entity exists: a repeat if it is in the target state (or one
   * the transition also accepts), else a rejection.
   *
   * @param spec the transition
   * @param id the entity's id
   * @param current the state the entity is in now (read under a row lock)
   * @return {@link TransitionResult#ALREADY_APPLIED}
   * @throws IllegalStateTransitionException if the entity is in a state the transition may not start from
   */
  public TransitionResult notApplied(TransitionSpec spec, Object id, String current) {
    if (current != null && spec.isApplied(current)) {
      notify("alreadyApplied", () -> listener.alreadyApplied(spec.name(), spec.entity(), id, current));
      return TransitionResult.ALREADY_APPLIED;
    }
    String message = current != null && spec.from().contains(current)
        // The state allows the transition, so only the expected version can have kept the row from matching.
        ? spec.name() + ": " + spec.entity() + " " + id + " is in " + current + " but no longer has the expected"
            + " version; it was changed since the caller read it. Re-read it and decide again."
        : spec.name() + ": " + spec.entity() + " " + id + " is in " + current + ", so it cannot move to "
            + spec.to() + " (allowed from " + String.join(", ", spec.from()) + ")";
    notify("rejected", () -> listener.rejected(spec.name(), spec.entity(), id, current, message));
    return throwing(new IllegalStateTransitionException(spec.entity(), id, current, spec.from(), spec.to(),
        message));
  }

  /**
   * No row has the id.
   *
   * @param spec the transition
   * @param id the entity's id
   * @return the exception, for the generated code to throw
   */
  public NoSuchEntityException notFound(TransitionSpec spec, Object id) {
    String message = spec.name() + ": there is no " + spec.entity() + " with id " + id;
    notify("rejected", () -> listener.rejected(spec.name(), spec.entity(), id, null, message));
    return new NoSuchEntityException(spec.entity(), id, message);
  }

  private static TransitionResult throwing(RuntimeException e) {
    throw e;
  }

  private static void notify(String event, Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "TransitionListener." + event + " failed; ignored", e);
    }
  }
}
