package dev.idem.setup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The user documentation (README.md and docs/*.md), read the way the docs tests need it. */
final class DocsFiles {

  static final Path ROOT = Path.of(System.getProperty("idem.rootDirectory", "..")).toAbsolutePath().normalize();

  private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*([\\w+-]*)\\s*$");

  /** A fenced code block: its language, its lines (without the fence's indentation) and where it starts. */
  record Block(Path file, int fenceLine, String language, List<String> lines, String marker) {

    /** The Markdown line of the block's i-th line (1-based, as editors count). */
    int markdownLine(int i) {
      return fenceLine + 1 + i;
    }

    String where() {
      return ROOT.relativize(file) + ":" + fenceLine;
    }
  }

  /** README.md and every docs/*.md, README first. */
  static List<Path> markdownFiles() {
    List<Path> files = new ArrayList<>();
    files.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(files::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return files;
  }

  static List<String> lines(Path file) {
    try {
      return List.of(Files.readString(file, StandardCharsets.UTF_8).split("\n", -1));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The fenced blocks of a file. {@code marker} is the HTML comment on the last non-blank line before the fence
   * ({@code <!-- ... -->}), or null.
   */
  static List<Block> blocks(Path file) {
    List<String> lines = lines(file);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher open = FENCE.matcher(lines.get(i));
      if (!open.matches()) {
        continue;
      }
      int indent = open.group(1).length();
      String language = open.group(2);
      List<String> body = new ArrayList<>();
      int j = i + 1;
      while (j < lines.size() && !lines.get(j).trim().equals("```")) {
        String line = lines.get(j);
        int strip = 0;
        while (strip < indent && strip < line.length() && line.charAt(strip) == ' ') {
          strip++;
        }
        body.add(line.substring(strip));
        j++;
      }
      String marker = null;
      for (int k = i - 1; k >= 0; k--) {
        String previous = lines.get(k).trim();
        if (previous.isEmpty()) {
          continue;
        }
        if (previous.startsWith("<!--") && previous.endsWith("-->")) {
          marker = previous.substring(4, previous.length() - 3).trim();
        }
        break;
      }
      blocks.add(new Block(file, i + 1, language, body, marker));
      i = j;
    }
    return blocks;
  }

  /** The lines outside fenced blocks (blank in their place, so that line numbers stay right). */
  static List<String> prose(Path file) {
    List<String> lines = new ArrayList<>(lines(file));
    boolean inFence = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      boolean fence = inFence ? line.trim().equals("```") : FENCE.matcher(line).matches();
      if (fence) {
        inFence = !inFence;
        lines.set(i, "");
      } else if (inFence) {
        lines.set(i, "");
      }
    }
    return lines;
  }

  private DocsFiles() {}
}
