package dev.idem.processor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for idem's own manifests (the processor has no JSON library on its path, and must not pull
 * one into every user's compiler): objects, arrays, strings, true, false, null, numbers as text.
 */
final class Json {

  private final String text;
  private int position;

  Json(String text) {
    this.text = text;
  }

  Object value() {
    Object value = next();
    skipBlanks();
    if (position != text.length()) {
      throw error("text after the value");
    }
    return value;
  }

  private Object next() {
    skipBlanks();
    if (position >= text.length()) {
      throw error("end of text where a value was expected");
    }
    char c = text.charAt(position);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      default:
        int start = position;
        while (position < text.length() && "{}[],: \t\r\n".indexOf(text.charAt(position)) < 0) {
          position++;
        }
        String word = text.substring(start, position);
        switch (word) {
          case "true": return Boolean.TRUE;
          case "false": return Boolean.FALSE;
          case "null": return null;
          default:
            if (word.matches("-?[0-9][0-9.eE+-]*")) {
              return word;
            }
            throw error("unexpected \"" + word + "\"");
        }
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> object = new LinkedHashMap<>();
    position++;
    skipBlanks();
    if (peek() == '}') {
      position++;
      return object;
    }
    while (true) {
      skipBlanks();
      if (peek() != '"') {
        throw error("a member name");
      }
      String name = string();
      skipBlanks();
      expect(':');
      object.put(name, next());
      skipBlanks();
      if (peek() == ',') {
        position++;
      } else {
        expect('}');
        return object;
      }
    }
  }

  private List<Object> array() {
    List<Object> array = new ArrayList<>();
    position++;
    skipBlanks();
    if (peek() == ']') {
      position++;
      return array;
    }
    while (true) {
      array.add(next());
      skipBlanks();
      if (peek() == ',') {
        position++;
      } else {
        expect(']');
        return array;
      }
    }
  }

  private String string() {
    StringBuilder value = new StringBuilder();
    position++;
    while (position < text.length()) {
      char c = text.charAt(position++);
      if (c == '"') {
        return value.toString();
      }
      if (c != '\\') {
        value.append(c);
        continue;
      }
      if (position >= text.length()) {
        break;
      }
      char escaped = text.charAt(position++);
      switch (escaped) {
        case 'n' -> value.append('\n');
        case 't' -> value.append('\t');
        case 'r' -> value.append('\r');
        case 'b' -> value.append('\b');
        case 'f' -> value.append('\f');
        case 'u' -> {
          if (position + 4 > text.length()) {
            throw error("a \\u escape");
          }
          value.append((char) Integer.parseInt(text.substring(position, position + 4), 16));
          position += 4;
        }
        default -> value.append(escaped);
      }
    }
    throw error("an unterminated string");
  }

  private char peek() {
    return position < text.length() ? text.charAt(position) : '\0';
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("'" + c + "'");
    }
    position++;
  }

  private void skipBlanks() {
    while (position < text.length() && Character.isWhitespace(text.charAt(position))) {
      position++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at character " + position);
  }
}
