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
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Guards the docs against losing sections: once, a script that rewrote the README's benchmark figures dropped ten
 * sections (HTTP APIs, dependency injection, compile-time checks among them) and no test noticed, while "Try it"
 * still sent readers to them. The README stays an overview that links every guide; every guide is in the index;
 * every section a text points to by name exists; every diagnostic tag the processor can report is listed.
 */
class ReadmeStructureTest {

  private static final Path ROOT = DocsFiles.ROOT;

  /** {@code see "Heading"} and {@code see *Heading*}: a section named in prose rather than linked. */
  private static final Pattern REFERENCE = Pattern.compile("see (?:\"([^\"]+)\"|\\*([^*]+)\\*)");

  private static final Pattern TAG = Pattern.compile("\"(IDEM-\\d{3})\"");

  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  private static List<String> headings(Path file) {
    List<String> headings = new ArrayList<>();
    for (String line : DocsFiles.prose(file)) {
      Matcher heading = HEADING.matcher(line);
      if (heading.matches()) {
        headings.add(heading.group(1).trim());
      }
    }
    return headings;
  }

  private static List<Path> guides() {
    return DocsFiles.markdownFiles().stream()
        .filter(p -> p.getParent().endsWith("docs") && !p.getFileName().toString().equals("README.md"))
        .collect(Collectors.toList());
  }

  @Test
  void theReadmeIsAnOverviewThatLinksEveryGuide() throws IOException {
    String readme = read(ROOT.resolve("README.md"));
    long lines = readme.lines().count();
    assertTrue(lines <= 300, "README.md has " + lines + " lines; details belong in docs/<topic>.md");
    List<String> headings = headings(ROOT.resolve("README.md"));
    for (String section : List.of("Try it", "Setup")) {
      assertTrue(headings.contains(section), "README has no \"" + section + "\" section: " + headings);
    }
    // CI greps the README for the test command.
    assertTrue(readme.contains("\nmvn -B verify\n"), "README's Try it shows `mvn -B verify`");
    String index = read(ROOT.resolve("docs/README.md"));
    List<Path> guides = guides();
    assertTrue(guides.size() >= 14, "the guides were not found: " + guides);
    Set<String> unlinked = new LinkedHashSet<>();
    for (Path guide : guides) {
      String name = guide.getFileName().toString();
      if (!readme.contains("(docs/" + name)) {
        unlinked.add("README -> " + name);
      }
      if (!index.contains("](" + name + ")")) {
        unlinked.add("docs/README.md -> " + name);
      }
      String text = read(guide);
      if (!text.contains("(../README.md")) {
        unlinked.add(name + " -> README");
      }
    }
    assertTrue(unlinked.isEmpty(), "missing links: " + unlinked);
  }

  @Test
  void everySectionTheDocsPointToByNameExists() {
    List<String> headings = new ArrayList<>();
    DocsFiles.markdownFiles().forEach(f -> headings.addAll(headings(f)));
    Set<String> missing = new LinkedHashSet<>();
    for (Path file : DocsFiles.markdownFiles()) {
      Matcher reference = REFERENCE.matcher(String.join("\n", DocsFiles.prose(file)));
      while (reference.find()) {
        String target = (reference.group(1) != null ? reference.group(1) : reference.group(2)).replaceAll("\\s+", " ");
        // A reference may name a heading's start ("Housekeeping" for "Housekeeping: scheduled purge").
        if (headings.stream().noneMatch(h -> h.startsWith(target))) {
          missing.add(ROOT.relativize(file) + ": " + target);
        }
      }
    }
    assertTrue(missing.isEmpty(), "the docs point to sections they do not have: " + missing);
  }

  @Test
  void everyDiagnosticTagIsListedUnderCompileTimeChecks() throws IOException {
    Path guide = ROOT.resolve("docs/compile-time-checks.md");
    String text = read(guide);
    int start = text.indexOf("\n## Compile-time checks");
    assertTrue(start >= 0, "docs/compile-time-checks.md has no \"Compile-time checks\" section");
    int end = text.indexOf("\n## ", start + 1);
    String section = text.substring(start, end < 0 ? text.length() : end);
    String messages = read(ROOT.resolve("idem-processor/src/main/java/dev/idem/processor/Message.java"));
    Matcher tag = TAG.matcher(messages);
    Set<String> unlisted = new LinkedHashSet<>();
    int tags = 0;
    while (tag.find()) {
      tags++;
      if (!section.contains("| " + tag.group(1) + " |")) {
        unlisted.add(tag.group(1));
      }
    }
    assertTrue(tags >= 40, "the processor's diagnostic tags were not found: " + tags);
    assertTrue(unlisted.isEmpty(), "diagnostics missing from the table of docs/compile-time-checks.md: " + unlisted);
  }
}
