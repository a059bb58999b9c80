package dev.idem.di.dagger;

import dagger.Binds;
import dagger.BindsInstance;
import dagger.Component;
import dagger.Module;
import dev.idem.di.Accounts;
import dev.idem.di.Accounts_Idempotent;
import dev.idem.di.JdbcAccounts;
import dev.idem.runtime.IdemRuntime;

/** Dagger 2: the application's component, with the runtime passed in once. */
@Component(modules = AccountsComponent.AccountsBindings.class)
public interface AccountsComponent {

  Accounts accounts();

  @Component.Factory
  interface Factory {
    AccountsComponent create(@BindsInstance IdemRuntime runtime);
  }

  @Module
  interface AccountsBindings {
    /** The one line per service: callers get the idempotent implementation. */
    @Binds
    Accounts accounts(Accounts_Idempotent idempotent);

    /** The binding the application has anyway, qualified so that idem's class can find it. */
    @Binds
    @Accounts_Idempotent.Delegate
    Accounts delegate(JdbcAccounts yours);
  }
}
