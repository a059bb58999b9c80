package dev.idem.di.weld;

import dev.idem.di.Accounts;
import dev.idem.di.Accounts_Idempotent;
import dev.idem.runtime.IdemRuntime;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import java.util.UUID;
import org.jboss.weld.environment.se.Weld;
import org.jboss.weld.environment.se.WeldContainer;

/** Weld SE (CDI 4.1): a container with the application's bean classes and the runtime registered as a bean. */
public final class WeldAccounts implements AutoCloseable {

  private final WeldContainer container;

  private WeldAccounts(WeldContainer container) {
    this.container = container;
  }

  public static WeldAccounts start(IdemRuntime runtime) {
    Weld weld = new Weld(UUID.randomUUID().toString())
        .disableDiscovery()
        // The one line per service: the generated class is a bean like the application's own.
        .addBeanClass(Accounts_Idempotent.class)
        .addBeanClass(CdiAccounts.class)
        .addExtension(new RuntimeBean(runtime));
    return new WeldAccounts(weld.initialize());
  }

  public Accounts accounts() {
    return container.select(Accounts.class).get();
  }

  @Override
  public void close() {
    container.shutdown();
  }

  /** What an application's producer method for its IdemRuntime does, for a runtime the test built. */
  public static final class RuntimeBean implements Extension {
    private final IdemRuntime runtime;

    RuntimeBean(IdemRuntime runtime) {
      this.runtime = runtime;
    }

    void register(@Observes AfterBeanDiscovery event) {
      event.addBean().types(IdemRuntime.class, Object.class).scope(Dependent.class).createWith(context -> runtime);
    }
  }
}
