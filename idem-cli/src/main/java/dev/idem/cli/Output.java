package dev.idem.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Tables for people, JSON for scripts: every command prints through this. */
final class Output {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Output() {}

  static void json(PrintWriter out, Object value) {
    try {
      out.println(JSON.writeValueAsString(value));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    out.flush();
  }

  /** Name-value lines, the names padded to one width. */
  static void properties(PrintWriter out, Map<String, ?> values) {
    int width = values.keySet().stream().mapToInt(String::length).max().orElse(0);
    for (Map.Entry<String, ?> entry : values.entrySet()) {
      out.println(pad(entry.getKey(), width) + "  " + text(entry.getValue()));
    }
    out.flush();
  }

  /** A table with a header row; each column as wide as its widest cell. */
  static void table(PrintWriter out, List<String> header, List<List<?>> rows) {
    List<List<String>> cells = new ArrayList<>();
    cells.add(header);
    for (List<?> row : rows) {
      cells.add(row.stream().map(Output::text).toList());
    }
    int[] widths = new int[header.size()];
    for (List<String> row : cells) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : cells) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size(); i++) {
        line.append(i == row.size() - 1 ? row.get(i) : pad(row.get(i), widths[i]) + "  ");
      }
      out.println(line.toString().stripTrailing());
    }
    out.flush();
  }

  static String text(Object value) {
    if (value == null) {
      return "-";
    }
    if (value instanceof Instant instant) {
      return instant.toString();
    }
    return String.valueOf(value);
  }

  /** At most {@code max} characters of a text, the rest as "...". */
  static String abbreviate(String text, int max) {
    if (text == null) {
      return "-";
    }
    return text.length() <= max ? text : text.substring(0, max - 3) + "...";
  }

  /** An instant as JSON text, null as null. */
  static String iso(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  private static String pad(String text, int width) {
    return text.length() >= width ? text : text + " ".repeat(width - text.length());
  }
}
