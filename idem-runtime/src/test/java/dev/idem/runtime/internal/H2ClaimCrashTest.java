package dev.idem.runtime.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.nio.file.Path;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The crash test on H2: an in-memory database lives in one JVM only, so this one is a file database in mixed mode
 * ({@code AUTO_SERVER=TRUE}). The parent opens it first and serves it; the child connects over TCP.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class H2ClaimCrashTest extends ClaimCrashTest {

  @TempDir
  static Path directory;

  private String url;
  private HikariDataSource dataSource;

  @BeforeAll
  void open() {
    url = "jdbc:h2:file:" + directory.resolve("crash").toAbsolutePath() + ";AUTO_SERVER=TRUE";
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setMaximumPoolSize(4);
    dataSource = new HikariDataSource(config);
  }

  @AfterAll
  void close() {
    if (dataSource != null) {
      dataSource.close();
    }
  }

  @Override
  String url() {
    return url;
  }

  @Override
  String user() {
    return "";
  }

  @Override
  String password() {
    return "";
  }

  @Override
  DataSource dataSource() {
    return dataSource;
  }
}
