package dev.idem.setup;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Guards the README against losing sections: once, a script that rewrote its benchmark figures dropped ten sections
 * (HTTP APIs, dependency injection, compile-time checks among them) and no test noticed, while "Try it" still sent
 * readers to them. Every cross-reference must name a heading that exists, and every diagnostic tag the processor can
 * report must be listed.
 */
class ReadmeStructureTest {

  private static final Path ROOT = Path.of(System.getProperty("idem.rootDirectory", "..")).normalize();

  /** {@code see "Heading"} and {@code see *Heading*}, the two ways the README points to a section. */
  private static final Pattern REFERENCE = Pattern.compile("see (?:\"([^\"]+)\"|\\*([^*]+)\\*)");

  private static final Pattern TAG = Pattern.compile("\"(IDEM-\\d{3})\"");

  private static String readme() throws IOException {
    return Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
  }

  private static List<String> headings(String readme) {
    List<String> headings = new ArrayList<>();
    for (String line : readme.split("\n")) {
      if (line.startsWith("#")) {
        headings.add(line.replaceFirst("^#+\\s*", "").trim());
      }
    }
    return headings;
  }

  @Test
  void everySectionTheReadmePointsToExists() throws IOException {
    String readme = readme();
    List<String> headings = headings(readme);
    Matcher reference = REFERENCE.matcher(readme);
    Set<String> missing = new LinkedHashSet<>();
    int references = 0;
    while (reference.find()) {
      String target = (reference.group(1) != null ? reference.group(1) : reference.group(2)).replaceAll("\\s+", " ");
      references++;
      // A reference may name a heading's start ("Housekeeping" for "Housekeeping: scheduled purge").
      if (headings.stream().noneMatch(h -> h.startsWith(target))) {
        missing.add(target);
      }
    }
    assertTrue(references >= 10, "the README's cross-references were not found: " + references);
    assertTrue(missing.isEmpty(), "README points to sections it does not have: " + missing);
  }

  @Test
  void everyDiagnosticTagIsListedUnderCompileTimeChecks() throws IOException {
    String readme = readme();
    int start = readme.indexOf("\n## Compile-time checks");
    assertTrue(start >= 0, "README has no \"Compile-time checks\" section");
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    String messages = Files.readString(
        ROOT.resolve("idem-processor/src/main/java/dev/idem/processor/Message.java"), StandardCharsets.UTF_8);
    Matcher tag = TAG.matcher(messages);
    Set<String> unlisted = new LinkedHashSet<>();
    int tags = 0;
    while (tag.find()) {
      tags++;
      if (!section.contains(tag.group(1))) {
        unlisted.add(tag.group(1));
      }
    }
    assertTrue(tags >= 40, "the processor's diagnostic tags were not found: " + tags);
    assertTrue(unlisted.isEmpty(), "diagnostics missing from README's Compile-time checks: " + unlisted);
  }
}
