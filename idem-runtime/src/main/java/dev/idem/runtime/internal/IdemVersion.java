package dev.idem.runtime.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The idem version of this runtime, from {@code idem-version.properties} beside this class (the Maven project
 * version, filtered in at build time). Generated code is compatible only with the runtime of its own version:
 * {@link IdemEngine#of} compares, and the processor reads the same file from the compile class path.
 */
final class IdemVersion {

  /** The resource, in this package, that the processor reads as well; its one key is {@code version}. */
  static final String RESOURCE = "idem-version.properties";

  /** This runtime's idem version, such as {@code 0.1.0}. */
  static final String VERSION = read();

  private IdemVersion() {}

  private static String read() {
    try (InputStream in = IdemVersion.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("idem-runtime is incomplete: " + RESOURCE + " is missing beside "
            + IdemVersion.class.getName());
      }
      Properties properties = new Properties();
      properties.load(in);
      String version = properties.getProperty("version");
      if (version == null || version.isBlank() || version.contains("${")) {
        throw new IllegalStateException("idem-runtime was built without its version: " + RESOURCE + " says "
            + version);
      }
      return version;
    } catch (IOException e) {
      throw new UncheckedIOException("Could not read " + RESOURCE, e);
    }
  }
}
