package dev.idem.di.weld;

import dev.idem.di.Accounts_Idempotent;
import dev.idem.di.JdbcAccounts;
import dev.idem.runtime.IdemRuntime;
import jakarta.inject.Inject;

/**
 * The user's implementation as a CDI bean: CDI takes a bean's qualifiers from its class, so the qualifier goes
 * here. It also takes the bean out of the default qualifier, which leaves {@code Accounts_Idempotent} the only
 * {@code @Default Accounts}.
 */
@Accounts_Idempotent.Delegate
public class CdiAccounts extends JdbcAccounts {

  @Inject
  public CdiAccounts(IdemRuntime runtime) {
    super(runtime);
  }
}
