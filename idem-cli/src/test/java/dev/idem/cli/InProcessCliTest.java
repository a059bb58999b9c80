package dev.idem.cli;

import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.nio.file.Path;
import java.util.Map;

/** The contract in-process on H2 in memory: fast, for working on the CLI. */
class InProcessCliTest extends CliContract {

  @Override
  protected Target open(Path directory) {
    IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.H2);
    return new Target(database.url(), database.user(), database.password(), database.dataSource(), database::close);
  }

  @Override
  protected Cli.Run cli(Map<String, String> environment, String... args) {
    return Cli.inProcess(environment, args);
  }
}
