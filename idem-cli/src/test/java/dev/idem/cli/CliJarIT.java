package dev.idem.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.jar.JarFile;
import org.junit.jupiter.api.Test;

/** The jar itself: executable, everything inside (idem's runtime and annotations, picocli, the three drivers). */
class CliJarIT {

  @Test
  void holdsTheRuntimeAndTheDriversAndRegistersEveryDriver() throws IOException {
    try (JarFile jar = new JarFile(Cli.jar().toFile())) {
      assertEquals("dev.idem.cli.IdemCli", jar.getManifest().getMainAttributes().getValue("Main-Class"));
      for (String type : new String[] {"dev/idem/cli/IdemCli.class", "dev/idem/runtime/IdemAdmin.class",
          "dev/idem/Mode.class", "dev/idem/InFlight.class", "picocli/CommandLine.class", "org/h2/Driver.class",
          "org/postgresql/Driver.class", "org/mariadb/jdbc/Driver.class",
          "com/fasterxml/jackson/databind/ObjectMapper.class",
          "dev/idem/runtime/schema/postgresql.sql"}) {
        assertNotNull(jar.getEntry(type), type);
      }
      try (InputStream drivers = jar.getInputStream(jar.getEntry("META-INF/services/java.sql.Driver"))) {
        String services = new String(drivers.readAllBytes(), StandardCharsets.UTF_8);
        for (String driver : new String[] {"org.h2.Driver", "org.postgresql.Driver", "org.mariadb.jdbc.Driver"}) {
          assertTrue(services.contains(driver), driver + " in " + services);
        }
      }
    }
  }

  @Test
  void printsItsVersionAndHelp() {
    Cli.Run version = Cli.jar(Map.of(), "--version");
    assertEquals(0, version.code(), version::toString);
    assertEquals("idem " + System.getProperty("idem.projectVersion", "0.1.0-SNAPSHOT"), version.out().strip());
    Cli.Run usage = Cli.jar(Map.of(), "inspect");
    assertEquals(ExitCodes.USAGE, usage.code(), usage::toString);
    assertTrue(usage.err().contains("Usage: idem inspect"), usage::toString);
  }
}
