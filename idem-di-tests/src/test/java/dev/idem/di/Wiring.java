package dev.idem.di;

import dev.idem.di.dagger.DaggerAccountsComponent;
import dev.idem.di.guice.AccountsModule;
import dev.idem.di.weld.WeldAccounts;
import dev.idem.runtime.IdemRuntime;
import com.google.inject.Guice;
import java.util.function.Function;

/** One real container each, started for a test and asked for {@link Accounts}, as an application would. */
enum Wiring {
  DAGGER(runtime -> new Started(DaggerAccountsComponent.factory().create(runtime).accounts(), () -> {})),
  GUICE(runtime -> new Started(
      Guice.createInjector(new AccountsModule(runtime)).getInstance(Accounts.class), () -> {})),
  WELD(runtime -> {
    WeldAccounts weld = WeldAccounts.start(runtime);
    return new Started(weld.accounts(), weld::close);
  });

  /** The service the container handed out, and how to shut the container down. */
  record Started(Accounts accounts, Runnable shutdown) implements AutoCloseable {
    @Override
    public void close() {
      shutdown.run();
    }
  }

  private final Function<IdemRuntime, Started> start;

  Wiring(Function<IdemRuntime, Started> start) {
    this.start = start;
  }

  Started start(IdemRuntime runtime) {
    return start.apply(runtime);
  }
}
