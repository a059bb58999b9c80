package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.idem.cli.seed.Payments;
import dev.idem.cli.seed.Payments_Idempotent;
import dev.idem.cli.seed.RecordingPayments;
import dev.idem.runtime.IdemRuntime;
import dev.idem.runtime.IdempotencyOutcomeUnknownException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * Real records, written by the generated {@code Payments_Idempotent} as an application writes them: a completed
 * charge, two charges whose outcome is unknown (their receipts exceed maxResultSize), expired pings.
 */
final class Seed {

  /** The memo that makes a receipt too large to store. */
  static final String LONG_MEMO = "m".repeat(600);
  static final int MAX_RESULT_SIZE = 400;

  final IdemRuntime runtime;
  final RecordingPayments delegate = new RecordingPayments();
  final Payments payments;

  Seed(DataSource dataSource, String table) {
    runtime = IdemRuntime.builder().dataSource(dataSource).tableName(table).maxResultSize(MAX_RESULT_SIZE)
        .resultCache(false).build();
    runtime.createSchema();
    payments = new Payments_Idempotent(delegate, runtime);
  }

  /** o-1 COMPLETED, o-2 and o-3 OUTCOME_UNKNOWN, p-1 and p-2 COMPLETED with a retention of one second. */
  Seed records() {
    payments.charge("o-1", 1250, "first");
    for (String order : List.of("o-2", "o-3")) {
      assertThrows(IdempotencyOutcomeUnknownException.class, () -> payments.charge(order, 990, LONG_MEMO));
    }
    payments.ping("p-1");
    payments.ping("p-2");
    return this;
  }

  /** A jar holding the test classes' manifests, as the application's jar would. */
  static Path applicationJar(Path directory) {
    Path jar = directory.resolve("payments-app.jar");
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
        Stream<Path> manifests = Files.list(manifest().getParent())) {
      for (Path manifest : manifests.toList()) {
        out.putNextEntry(new JarEntry("META-INF/idem/" + manifest.getFileName()));
        out.write(Files.readAllBytes(manifest));
        out.closeEntry();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return jar;
  }

  /** The manifest file of Payments, as the processor wrote it into the test classes. */
  static Path manifest() {
    URL resource = Seed.class.getResource("/META-INF/idem/" + Payments.class.getName() + ".json");
    if (resource == null || !resource.getProtocol().equals("file")) {
      throw new IllegalStateException("The processor wrote no manifest of Payments into the test classes: " + resource);
    }
    try {
      return Path.of(resource.toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
