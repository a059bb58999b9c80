package dev.idem.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Setup, followed as a new user would: the project's artifacts installed into an otherwise empty
 * local repository (idem-bom, which the snippet imports, among them), and a separate project whose pom is the
 * README's snippet, built with Maven. The snippet is
 * read from README.md itself, so it cannot drift from what is tested.
 *
 * <p>Third-party artifacts the user build needs (plugins, Jackson, ...) are taken from the developer's own
 * repository, used read-only as a remote repository for released artifacts (so no idem SNAPSHOT can come from
 * there), and from Maven Central for anything missing. Nothing is written outside the temporary directory.
 */
class ReadmeSetupTest {

  private static final Path ROOT = Path.of(System.getProperty("idem.rootDirectory", "..")).normalize();
  private static final String VERSION = System.getProperty("idem.version", "0.1.0-SNAPSHOT");
  private static final List<String> MODULES = List.of("idem-annotations", "idem-runtime", "idem-processor");

  @Test
  @Timeout(value = 5, unit = TimeUnit.MINUTES)
  void aUserProjectBuiltFromTheReadmeSnippetCompilesAndGeneratesItsService(@TempDir Path temp) throws Exception {
    for (String module : MODULES) {
      // `mvn test` stops before the jars exist; `mvn verify` (the README's and CI's command) packages them first.
      Assumptions.assumeTrue(Files.isRegularFile(jar(module)),
          "SKIPPED: " + jar(module) + " is not packaged; run mvn verify");
    }
    String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
    String setup = section(readme, "## Setup");
    assertTrue(setup.contains("mvn -B -q install -DskipTests"), "Setup names the install command:\n" + setup);
    String snippet = xmlBlock(setup);
    assertTrue(snippet.contains("<artifactId>idem-bom</artifactId>") && snippet.contains("<scope>import</scope>"),
        "the snippet imports idem-bom:\n" + snippet);
    assertEquals(System.getProperty("idem.compilerPluginVersion"), compilerPluginVersion(snippet),
        "the snippet pins maven-compiler-plugin as the root pom does");

    Path repository = Files.createDirectories(temp.resolve("repository"));
    install(repository, "idem-parent", ROOT.resolve("pom.xml"), null);
    install(repository, "idem-bom", ROOT.resolve("idem-bom/pom.xml"), null);
    for (String module : MODULES) {
      install(repository, module, ROOT.resolve(module).resolve("pom.xml"), jar(module));
    }

    Path project = temp.resolve("user-project");
    Files.createDirectories(project);
    Files.writeString(project.resolve("pom.xml"), userPom(snippet));
    writeSources(project.resolve("src/main/java/com/example/shop"));
    Path settings = temp.resolve("settings.xml");
    Files.writeString(settings, settings(Path.of(System.getProperty("user.home"), ".m2", "repository")));

    Process maven = new ProcessBuilder(mavenCommand(), "-B", "-q", "-s", settings.toString(),
        "-Dmaven.repo.local=" + repository, "compile")
        .directory(project.toFile())
        .redirectErrorStream(true)
        .redirectOutput(temp.resolve("build.log").toFile())
        .start();
    if (!maven.waitFor(4, TimeUnit.MINUTES)) {
      maven.destroyForcibly();
      throw new AssertionError("the user build hung:\n" + Files.readString(temp.resolve("build.log")));
    }
    String log = Files.readString(temp.resolve("build.log"));
    assertEquals(0, maven.exitValue(), "the user build failed:\n" + log);
    assertTrue(Files.isRegularFile(project.resolve("target/classes/com/example/shop/Orders_Idempotent.class")),
        "the processor ran from annotationProcessorPaths:\n" + log);
    assertTrue(Files.isRegularFile(project.resolve("target/classes/com/example/shop/App.class")));
  }

  private static Path jar(String module) {
    return ROOT.resolve(module).resolve("target").resolve(module + "-" + VERSION + ".jar");
  }

  /** What {@code mvn install} leaves in a local repository: the pom, and the jar unless it is a parent. */
  private static void install(Path repository, String artifactId, Path pom, Path jar) throws IOException {
    Path directory = Files.createDirectories(repository.resolve("dev/idem").resolve(artifactId).resolve(VERSION));
    Files.copy(pom, directory.resolve(artifactId + "-" + VERSION + ".pom"));
    if (jar != null) {
      Files.copy(jar, directory.resolve(artifactId + "-" + VERSION + ".jar"));
    }
  }

  /** The text from {@code heading} to the next second-level heading. */
  static String section(String markdown, String heading) {
    int start = markdown.indexOf("\n" + heading + "\n");
    assertTrue(start >= 0, "README has no " + heading);
    int end = markdown.indexOf("\n## ", start + heading.length() + 2);
    return markdown.substring(start, end < 0 ? markdown.length() : end);
  }

  static String xmlBlock(String text) {
    Matcher block = Pattern.compile("```xml\n(.*?)```", Pattern.DOTALL).matcher(text);
    assertTrue(block.find(), "no xml block in:\n" + text);
    return block.group(1);
  }

  static String compilerPluginVersion(String snippet) {
    Matcher plugin = Pattern.compile(
        "<artifactId>maven-compiler-plugin</artifactId>\\s*(?:<!--.*?-->\\s*)*<version>([^<]+)</version>",
        Pattern.DOTALL).matcher(snippet);
    assertTrue(plugin.find(), "the snippet does not pin maven-compiler-plugin:\n" + snippet);
    return plugin.group(1);
  }

  private static String userPom(String snippet) {
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>com.example</groupId>
          <artifactId>shop</artifactId>
          <version>1.0</version>
          <properties>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
        %s
        </project>
        """.formatted(snippet);
  }

  private static void writeSources(Path directory) throws IOException {
    Files.createDirectories(directory);
    Files.writeString(directory.resolve("Orders.java"), """
        package com.example.shop;

        import dev.idem.IdempotencyKey;
        import dev.idem.IdempotentCommand;

        public interface Orders {
          record Order(String id, long totalCents) {}

          @IdempotentCommand(scope = "orders.create")
          Order create(@IdempotencyKey String requestId, long totalCents);
        }
        """);
    Files.writeString(directory.resolve("App.java"), """
        package com.example.shop;

        import dev.idem.runtime.IdemRuntime;

        public final class App {
          // The Setup's JDBC driver is on the compile class path: H2's own pool, as the README starts with.
          static IdemRuntime runtime() {
            return IdemRuntime.builder()
                .dataSource(org.h2.jdbcx.JdbcConnectionPool.create("jdbc:h2:mem:shop;DB_CLOSE_DELAY=-1", "sa", ""))
                .build();
          }

          static Orders wire(IdemRuntime runtime) {
            Orders plain = (requestId, totalCents) -> new Orders.Order(requestId, totalCents);
            return new Orders_Idempotent(plain, runtime);
          }
        }
        """);
  }

  /**
   * Released artifacts from the developer's repository first (read-only, as a remote repository), then Central.
   * Snapshots are off for it, so dev.idem can only come from the temporary local repository.
   */
  private static String settings(Path developerRepository) {
    String url = developerRepository.toUri().toString();
    return """
        <settings>
          <profiles>
            <profile>
              <id>seed</id>
              <repositories>
                <repository>
                  <id>developer-repository</id>
                  <url>%1$s</url>
                  <releases><enabled>true</enabled></releases>
                  <snapshots><enabled>false</enabled></snapshots>
                </repository>
              </repositories>
              <pluginRepositories>
                <pluginRepository>
                  <id>developer-repository</id>
                  <url>%1$s</url>
                  <releases><enabled>true</enabled></releases>
                  <snapshots><enabled>false</enabled></snapshots>
                </pluginRepository>
              </pluginRepositories>
            </profile>
          </profiles>
          <activeProfiles>
            <activeProfile>seed</activeProfile>
          </activeProfiles>
        </settings>
        """.formatted(url);
  }

  private static String mavenCommand() {
    String home = System.getProperty("maven.home");
    List<String> candidates = new ArrayList<>();
    if (home != null) {
      candidates.add(Path.of(home, "bin", "mvn").toString());
    }
    candidates.add("mvn");
    for (String candidate : candidates) {
      if (candidate.equals("mvn") || Files.isExecutable(Path.of(candidate))) {
        return candidate;
      }
    }
    return "mvn";
  }
}
