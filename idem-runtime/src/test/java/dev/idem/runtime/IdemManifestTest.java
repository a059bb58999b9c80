package dev.idem.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Manifests found where applications ship them: a jar, a Spring Boot jar, a directory, a file, the class path. */
class IdemManifestTest {

  private static String manifest(String service, String scope) {
    return "{\"service\":\"" + service + "\",\"commands\":[{\"scope\":\"" + scope + "\",\"method\":\"m\","
        + "\"keyParts\":[\"id\"],\"payload\":[],\"resultType\":\"java.lang.String\",\"resultShape\":"
        + "\"java.lang.String\",\"resultShapeHash\":\"73cc7ce309d9be85\",\"mode\":\"CLAIM\",\"retention\":\"P1D\"}]}";
  }

  private static byte[] jar(String... entriesAndContents) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (JarOutputStream jar = new JarOutputStream(bytes)) {
      for (int i = 0; i < entriesAndContents.length; i += 2) {
        jar.putNextEntry(new JarEntry(entriesAndContents[i]));
        jar.write(entriesAndContents[i + 1].getBytes(StandardCharsets.ISO_8859_1));
        jar.closeEntry();
      }
    }
    return bytes.toByteArray();
  }

  @Test
  void readsAPlainJarASpringBootJarADirectoryAndAFile(@TempDir Path directory) throws IOException {
    Path plain = directory.resolve("app.jar");
    Files.write(plain, jar("META-INF/idem/a.A.json", manifest("a.A", "A.run"), "META-INF/other.json", "{}"));
    assertEquals(List.of("A.run"), IdemManifest.load(plain).get(0).commands().stream()
        .map(IdemManifest.Command::scope).toList());

    String nested = new String(jar("META-INF/idem/c.C.json", manifest("c.C", "C.run")), StandardCharsets.ISO_8859_1);
    Path boot = directory.resolve("boot.jar");
    Files.write(boot, jar("BOOT-INF/classes/META-INF/idem/b.B.json", manifest("b.B", "B.run"),
        "BOOT-INF/lib/c.jar", nested));
    List<IdemManifest> found = IdemManifest.load(boot);
    assertEquals(List.of("b.B", "c.C"), found.stream().map(IdemManifest::service).toList());
    assertTrue(IdemManifest.find(found, "C.run").orElseThrow().isVoid() == false);

    Path classes = directory.resolve("classes/META-INF/idem");
    Files.createDirectories(classes);
    Files.writeString(classes.resolve("d.D.json"), manifest("d.D", "D.run"));
    assertEquals("D.run", IdemManifest.load(directory.resolve("classes")).get(0).commands().get(0).scope());
    assertEquals("D.run", IdemManifest.load(classes.resolve("d.D.json")).get(0).commands().get(0).scope());
  }

  @Test
  void refusesWhatIsNoManifestAndScopesDescribedTwiceDifferently(@TempDir Path directory) throws IOException {
    Path file = directory.resolve("x.json");
    try (OutputStream out = Files.newOutputStream(file)) {
      out.write("{\"service\":\"x\"}".getBytes(StandardCharsets.UTF_8));
    }
    assertThrows(IllegalArgumentException.class, () -> IdemManifest.load(file));
    assertThrows(IllegalArgumentException.class, () -> IdemManifest.load(directory.resolve("missing.jar")));
    IdemManifest one = IdemManifest.parse(manifest("a.A", "S.run"), "one");
    IdemManifest other = IdemManifest.parse(manifest("b.B", "S.run"), "other");
    assertThrows(IllegalArgumentException.class, () -> IdemManifest.find(List.of(one, other), "S.run"));
  }

  @Test
  void findsTheManifestsOnTheClassPath() {
    List<IdemManifest> manifests = IdemManifest.onClassPath(IdemManifestTest.class.getClassLoader());
    assertTrue(IdemManifest.find(manifests, "Admin.charge").isPresent(), manifests::toString);
  }
}
