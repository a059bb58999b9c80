package dev.idem.cli;

import dev.idem.testing.IsolatedDatabase;
import dev.idem.testing.TestDatabase;
import java.nio.file.Path;
import java.util.Map;

/** The jar as operators run it (a child JVM), on a Postgres database of the test class's own. */
class PostgresCliJarIT extends CliContract {

  @Override
  protected Target open(Path directory) {
    IsolatedDatabase database = IsolatedDatabase.open(TestDatabase.POSTGRESQL);
    return new Target(database.url(), database.user(), database.password(), database.dataSource(), database::close);
  }

  @Override
  protected Cli.Run cli(Map<String, String> environment, String... args) {
    return Cli.jar(environment, args);
  }
}
