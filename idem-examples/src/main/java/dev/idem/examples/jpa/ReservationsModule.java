package dev.idem.examples.jpa;

import com.google.inject.AbstractModule;
import com.google.inject.Scopes;
import dev.idem.jpa.JpaUnitOfWork;
import dev.idem.runtime.IdemRuntime;

/** The application's Guice module: what it provides anyway, plus one line per idem service. */
public final class ReservationsModule extends AbstractModule {

  private final IdemRuntime runtime;
  private final JpaUnitOfWork jpa;

  public ReservationsModule(IdemRuntime runtime, JpaUnitOfWork jpa) {
    this.runtime = runtime;
    this.jpa = jpa;
  }

  @Override
  protected void configure() {
    bind(IdemRuntime.class).toInstance(runtime);
    bind(JpaUnitOfWork.class).toInstance(jpa);
    // The one line per service: the interface is idem's generated class ...
    bind(Reservations.class).to(Reservations_Idempotent.class);
    // ... which calls the application's implementation, found by the generated qualifier.
    bind(Reservations_Commands.class).annotatedWith(Reservations_Idempotent.Delegate.class)
        .to(JpaReservations.class);
    bind(JpaReservations.class).in(Scopes.SINGLETON);
  }
}
