package dev.idem.cli;

import java.nio.file.Path;
import java.util.Map;
import org.h2.jdbcx.JdbcDataSource;

/**
 * The jar as operators run it, on an H2 file database the test's own process has open too (AUTO_SERVER lets the
 * CLI's JVM in).
 */
class H2CliJarIT extends CliContract {

  @Override
  protected Target open(Path directory) {
    String url = "jdbc:h2:file:" + directory.resolve("payments").toAbsolutePath() + ";AUTO_SERVER=TRUE";
    JdbcDataSource dataSource = new JdbcDataSource();
    dataSource.setURL(url);
    return new Target(url, "", "", dataSource, () -> { });
  }

  @Override
  protected Cli.Run cli(Map<String, String> environment, String... args) {
    return Cli.jar(environment, args);
  }
}
