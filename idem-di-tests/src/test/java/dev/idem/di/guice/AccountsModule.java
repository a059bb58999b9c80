package dev.idem.di.guice;

import com.google.inject.AbstractModule;
import dev.idem.di.Accounts;
import dev.idem.di.Accounts_Idempotent;
import dev.idem.di.JdbcAccounts;
import dev.idem.runtime.IdemRuntime;

/** Guice 7: the application's module. */
public final class AccountsModule extends AbstractModule {

  private final IdemRuntime runtime;

  public AccountsModule(IdemRuntime runtime) {
    this.runtime = runtime;
  }

  @Override
  protected void configure() {
    bind(IdemRuntime.class).toInstance(runtime);
    // The one line per service: callers get the idempotent implementation.
    bind(Accounts.class).to(Accounts_Idempotent.class);
    // The binding the application has anyway, qualified so that idem's class can find it.
    bind(Accounts.class).annotatedWith(Accounts_Idempotent.Delegate.class).to(JdbcAccounts.class);
  }
}
