package dev.idem.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * idem-bom has no parent (importing it must not pin the user's other dependencies), so nothing but this test keeps
 * it in step with the reactor: its version is the project's, and it lists every published module, no more.
 */
class BomTest {

  private static final Path ROOT = Path.of(System.getProperty("idem.rootDirectory", "..")).normalize();

  /** Modules that are published but are no library a user depends on. */
  private static final Set<String> NOT_IN_THE_BOM = Set.of("idem-bom", "idem-examples", "idem-benchmarks");

  @Test
  void theBomListsEveryPublishedModuleAtTheProjectVersion() throws IOException {
    String root = read(ROOT.resolve("pom.xml"));
    String bom = read(ROOT.resolve("idem-bom/pom.xml"));
    assertEquals(firstVersion(root), firstVersion(bom), "idem-bom's version is the project's");

    Set<String> published = new TreeSet<>();
    Matcher module = Pattern.compile("<module>([^<]+)</module>").matcher(root);
    while (module.find()) {
      String name = module.group(1);
      String pom = read(ROOT.resolve(name).resolve("pom.xml"));
      if (!NOT_IN_THE_BOM.contains(name) && !pom.contains("<maven.deploy.skip>true</maven.deploy.skip>")) {
        published.add(name);
      }
    }
    Set<String> listed = new TreeSet<>();
    Matcher managed = Pattern.compile(
        "<groupId>dev\\.idem</groupId>\\s*<artifactId>([^<]+)</artifactId>\\s*<version>\\$\\{project\\.version}</version>")
        .matcher(bom);
    while (managed.find()) {
      listed.add(managed.group(1));
    }
    assertEquals(published, listed, "idem-bom's dependencyManagement against the root pom's published modules");
  }

  private static String firstVersion(String pom) {
    String withoutParent = pom.replaceAll("(?s)<parent>.*?</parent>", "");
    Matcher version = Pattern.compile("<version>([^<]+)</version>").matcher(withoutParent);
    return version.find() ? version.group(1) : null;
  }

  private static String read(Path path) throws IOException {
    return Files.readString(path, StandardCharsets.UTF_8);
  }
}
