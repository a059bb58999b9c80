package dev.idem.processor;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The idem version of this processor, from {@code idem-version.properties} beside this class (the Maven project
 * version, filtered in at build time). It goes into {@code @Generated} and into every generated constructor, which
 * hands it to the runtime; {@link RuntimeCheck} compares it with the runtime on the class path.
 */
final class ProcessorVersion {

  static final String VERSION = read();

  private ProcessorVersion() {}

  private static String read() {
    String resource = "idem-version.properties";
    try (InputStream in = ProcessorVersion.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("idem-processor is incomplete: " + resource + " is missing");
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version");
      if (version == null || version.isBlank() || version.contains("${")) {
        throw new IllegalStateException("idem-processor was built without its version: " + resource + " says "
            + version);
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + resource, e);
    }
  }
}
