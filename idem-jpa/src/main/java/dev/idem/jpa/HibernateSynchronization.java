package dev.idem.jpa;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceException;
import jakarta.transaction.Status;
import jakarta.transaction.Synchronization;
import org.hibernate.Session;

/**
 * The one thing Jakarta Persistence has no API for: running an action after the EntityManager's transaction
 * committed. Hibernate ORM's transactions take a {@link Synchronization}. Only this class names Hibernate's types;
 * {@link JpaTransactions} touches it only when Hibernate is on the class path, so that idem-jpa runs with another
 * provider (without after-commit actions).
 */
final class HibernateSynchronization {

  private HibernateSynchronization() {}

  /** Registers action to run once the transaction commits; false if the EntityManager is not Hibernate's. */
  static boolean afterCommit(EntityManager entityManager, Runnable action) {
    Session session;
    try {
      session = entityManager.unwrap(Session.class);
    } catch (PersistenceException e) {
      return false;
    }
    session.getTransaction().registerSynchronization(new Synchronization() {
      @Override
      public void beforeCompletion() {}

      @Override
      public void afterCompletion(int status) {
        if (status == Status.STATUS_COMMITTED) {
          action.run();
        }
      }
    });
    return true;
  }
}
