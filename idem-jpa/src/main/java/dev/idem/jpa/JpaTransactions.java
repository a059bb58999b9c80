package dev.idem.jpa;

import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.TransactionBinding;
import jakarta.persistence.EntityManager;
import jakarta.persistence.metamodel.EntityType;
import java.sql.Connection;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * idem inside the application's Jakarta Persistence transaction: a {@link TransactionBinding} over the
 * {@link EntityManager} of the current thread, for {@link IdemRuntime.Builder#joinTransactions}. A command called
 * while that EntityManager's transaction is active records on its JDBC connection, so that the entities the command
 * persists and its idempotency record commit or roll back together.
 *
 * <ul>
 *   <li>{@link #currentConnection()}: the connection of the EntityManager's active transaction
 *       ({@link EntityManager#callWithConnection}); null when the thread has no EntityManager or its transaction is
 *       not active, and idem then begins its own transaction.
 *   <li>{@link #flush()}: {@link EntityManager#flush()}, before idem's statements start (so that a rollback to idem's
 *       savepoint cannot undo what the application wrote before) and after a body returned (so that the body's
 *       entities are written before the record completes, and a failing flush counts as the body's failure).
 *   <li>{@link #bodyFailed}: marks the transaction rollback-only. idem rolled back the rows of the body, but the
 *       persistence context still holds what the body persisted or changed: a commit would write it, or claim rows
 *       that are gone. The exception reaches the caller, whose transaction can only roll back (a commit throws
 *       {@code RollbackException}), as after any failed JPA operation.
 *   <li>{@link #failureRecorded}: a {@code replayOn} failure is the command's outcome, recorded in the application's
 *       transaction, which must stay committable. The persistence context is cleared instead: the body's entities
 *       are dropped, while the application's own writes from before the command were flushed before idem's savepoint
 *       and commit. Entities the application holds become detached: find them again after such a failure.
 *   <li>{@link #entityChanged}: after a {@code @StateTransition} moved an entity's row with its guarded update, a
 *       managed instance of it is refreshed (new state and version); an instance not loaded is left alone.
 *   <li>{@link #afterCommit}: a transaction synchronization of Hibernate ORM (Jakarta Persistence has no API for
 *       it); false with another provider.
 * </ul>
 *
 * <p>Resource-local EntityManagers (the application's {@code EntityTransaction}) are what this class is tested with.
 */
public final class JpaTransactions implements TransactionBinding {

  /** Whether Hibernate ORM is on the class path (for {@link HibernateSynchronization}); checked once. */
  private static final boolean HIBERNATE = present("org.hibernate.Session");

  private final Supplier<EntityManager> currentEntityManager;

  private JpaTransactions(Supplier<EntityManager> currentEntityManager) {
    this.currentEntityManager = currentEntityManager;
  }

  /**
   * A binding over the EntityManager the application uses on the current thread.
   *
   * @param currentEntityManager returns the current thread's EntityManager, or null if it has none (e.g. a
   *     container's lookup, or {@link JpaUnitOfWork#currentEntityManager()})
   * @return the binding
   */
  public static JpaTransactions of(Supplier<EntityManager> currentEntityManager) {
    return new JpaTransactions(Objects.requireNonNull(currentEntityManager, "currentEntityManager"));
  }

  /** The current thread's EntityManager if its transaction is active, else null. */
  private EntityManager active() {
    EntityManager entityManager = currentEntityManager.get();
    return entityManager != null && entityManager.isOpen() && entityManager.isJoinedToTransaction()
        ? entityManager
        : null;
  }

  private EntityManager required() {
    EntityManager entityManager = active();
    if (entityManager == null) {
      throw new IllegalStateException("idem was called back for the application's JPA transaction, but the current"
          + " thread's EntityManager has no active transaction any more");
    }
    return entityManager;
  }

  @Override
  public Connection currentConnection() {
    EntityManager entityManager = active();
    return entityManager == null ? null : entityManager.callWithConnection((Connection connection) -> connection);
  }

  @Override
  public void flush() {
    required().flush();
  }

  @Override
  public void bodyFailed(Throwable failure) {
    EntityManager entityManager = active();
    if (entityManager != null) {
      entityManager.getTransaction().setRollbackOnly();
    }
  }

  @Override
  public void failureRecorded(Throwable failure) {
    required().clear();
  }

  @Override
  public void entityChanged(String entityName, Object id) {
    EntityManager entityManager = required();
    Class<?> type = entityType(entityManager, entityName);
    if (type == null) {
      return; // a table this persistence unit does not map: nothing of it can be managed
    }
    // getReference returns the managed instance if there is one, without a query; otherwise an unloaded proxy,
    // which reads the row (the new state) on first use.
    Object instance = entityManager.getReference(type, id);
    if (entityManager.getEntityManagerFactory().getPersistenceUnitUtil().isLoaded(instance)) {
      entityManager.refresh(instance);
    }
  }

  private static Class<?> entityType(EntityManager entityManager, String entityName) {
    for (EntityType<?> entity : entityManager.getMetamodel().getEntities()) {
      if (entity.getName().equals(entityName)) {
        return entity.getJavaType();
      }
    }
    return null;
  }

  @Override
  public boolean afterCommit(Runnable action) {
    EntityManager entityManager = required();
    return HIBERNATE && HibernateSynchronization.afterCommit(entityManager, action);
  }

  private static boolean present(String className) {
    try {
      Class.forName(className, false, JpaTransactions.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
