package dev.idem.examples.payments;

import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;

/** On an H2 file database, as a single-node deployment would run; the test's own H2 database is unused. */
class H2FilePaymentsServerRestartTest extends PaymentsServerRestartTest {

  private Path directory;

  @Override
  protected TestDatabase database() {
    return TestDatabase.H2;
  }

  @Override
  protected List<String> jdbcProperties() throws IOException {
    if (directory == null) {
      directory = Files.createTempDirectory("idem-payments-restart");
    }
    // WRITE_DELAY=0: H2 otherwise writes commits to the file up to 500 ms later, and a SIGKILL loses them.
    return List.of("-Djdbc.url=jdbc:h2:file:" + directory.resolve("payments").toAbsolutePath() + ";WRITE_DELAY=0");
  }

  @AfterAll
  void deleteDatabaseFiles() throws IOException {
    if (directory != null) {
      try (Stream<Path> files = Files.walk(directory)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }
}
