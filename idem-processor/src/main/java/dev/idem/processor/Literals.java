package dev.idem.processor;

import java.util.ArrayList;
import java.util.List;

/**
 * A JavaPoet format and its arguments, built with the string literals that need no escape written into the format
 * as text: {@code "requestId"} instead of {@code $S} and an argument. The output is the same as with {@code $S}
 * (JavaPoet writes such a string unchanged between quotes); what is saved is JavaPoet's work for every argument,
 * parsed when the block is built and emitted twice when the file is written (once to collect its imports). The
 * processor runs cold in every compilation (a new class loader), and JavaPoet's format handling is most of what
 * it interprets and JIT-compiles anew per command; a spec's literals were half its arguments.
 */
final class Literals {

  private final StringBuilder format = new StringBuilder();
  private final List<Object> args = new ArrayList<>();

  /** Format text, with the arguments of its {@code $} placeholders, in order. */
  Literals text(String formatText, Object... arguments) {
    format.append(formatText);
    for (Object argument : arguments) {
      args.add(argument);
    }
    return this;
  }

  /** The string as a literal: in the format where it is plain, else as {@code $S}. */
  Literals string(String value) {
    if (isPlain(value)) {
      format.append('"').append(value).append('"');
    } else {
      format.append("$S");
      args.add(value);
    }
    return this;
  }

  /** A name (a local, a field, a method), in the format unless it holds a {@code $}, else as {@code $N}. */
  Literals name(CharSequence value) {
    String text = value.toString();
    if (text.indexOf('$') < 0) {
      format.append(text);
    } else {
      format.append("$N");
      args.add(text);
    }
    return this;
  }

  /** {@code new String[] {"a", "b"}}: names as an array, which a varargs list or List.of would infer. */
  Literals strings(List<String> values) {
    format.append("new String[] {");
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        format.append(", ");
      }
      string(values.get(i));
    }
    format.append('}');
    return this;
  }

  String format() {
    return format.toString();
  }

  Object[] args() {
    return args.toArray();
  }

  /**
   * Printable ASCII without a quote or backslash, which {@code $S} would escape, nor a {@code $}, which the format
   * would read as a placeholder.
   */
  static boolean isPlain(String value) {
    if (value == null) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '$') {
        return false;
      }
    }
    return true;
  }
}
