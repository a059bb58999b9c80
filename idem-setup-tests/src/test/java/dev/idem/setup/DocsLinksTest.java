package dev.idem.setup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md and docs/*.md names a file that exists, and every {@code #anchor} (in the same
 * file or another Markdown file) names a heading there, by GitHub's rules for heading anchors.
 */
class DocsLinksTest {

  /** {@code [text](target)}; images too. Targets with a scheme (https:, mailto:) are not checked. */
  private static final Pattern LINK = Pattern.compile("\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(([^)\\s]+)\\)");

  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

  /**
   * GitHub's anchor for a heading: lowercase, Markdown code marks and punctuation dropped except hyphens and
   * underscores, each space a hyphen.
   */
  static String slug(String heading) {
    String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");   // a link in a heading: its text
    StringBuilder slug = new StringBuilder();
    for (int i = 0; i < text.length(); ) {
      int c = text.codePointAt(i);
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        slug.appendCodePoint(Character.toLowerCase(c));
      } else if (c == ' ') {
        slug.append('-');
      }
      i += Character.charCount(c);
    }
    return slug.toString().toLowerCase(Locale.ROOT);
  }

  /** The anchors of a Markdown file; a repeated heading gets -1, -2, ... as on GitHub. */
  static Set<String> anchors(Path file) {
    Set<String> anchors = new LinkedHashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : DocsFiles.prose(file)) {
      Matcher heading = HEADING.matcher(line);
      if (!heading.matches()) {
        continue;
      }
      String slug = slug(heading.group(1));
      int count = seen.merge(slug, 1, Integer::sum);
      anchors.add(count == 1 ? slug : slug + "-" + (count - 1));
    }
    return anchors;
  }

  @Test
  void slugsFollowGitHub() {
    assertEquals("what-currentconnection-allows", slug("What `currentConnection()` allows"));
    assertEquals("commands-with-external-side-effects-mode--modeclaim",
        slug("Commands with external side effects: `mode = Mode.CLAIM`"));
    assertEquals("knowing-a-replay-idempotentresultt", slug("Knowing a replay: `IdempotentResult<T>`"));
    assertEquals("upgrading-a-table-created-before-result_shape",
        slug("Upgrading a table created before `result_shape`"));
  }

  @Test
  void everyRelativeLinkAndAnchorResolves() {
    List<String> broken = new ArrayList<>();
    int links = 0;
    for (Path file : DocsFiles.markdownFiles()) {
      List<String> prose = DocsFiles.prose(file);
      for (int i = 0; i < prose.size(); i++) {
        // Inline code is not a link: `[x](y)` inside backticks is left alone.
        String line = prose.get(i).replaceAll("`[^`]*`", "``");
        Matcher link = LINK.matcher(line);
        while (link.find()) {
          String target = link.group(1);
          if (target.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
            continue;
          }
          links++;
          String where = DocsFiles.ROOT.relativize(file) + ":" + (i + 1) + ": " + target;
          int hash = target.indexOf('#');
          String path = hash < 0 ? target : target.substring(0, hash);
          Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
          if (!Files.exists(resolved)) {
            broken.add(where + " (no such file)");
            continue;
          }
          if (hash >= 0) {
            String anchor = target.substring(hash + 1);
            if (!resolved.toString().endsWith(".md") || Files.isDirectory(resolved)) {
              broken.add(where + " (an anchor into a file that is not Markdown)");
            } else if (!anchors(resolved).contains(anchor)) {
              broken.add(where + " (no heading with that anchor in " + DocsFiles.ROOT.relativize(resolved) + ")");
            }
          }
        }
      }
    }
    assertTrue(links >= 50, "the docs' links were not found: " + links);
    assertTrue(broken.isEmpty(), broken.size() + " broken link(s):\n" + String.join("\n", broken));
  }
}
