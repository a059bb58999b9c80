package dev.idem.runtime.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.math.BigInteger;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * Checks a result given as JSON against a command's result shape as the processor writes it into the manifest
 * ({@code META-INF/idem/<service>.json}, e.g. {@code shop.Receipt{orderId:java.lang.String,totalCents:long}}), without
 * the result's classes: what an operator tool outside the application (the CLI) needs before it resolves an
 * {@code OUTCOME_UNKNOWN} record, so that a typo never becomes a completed record every retry fails to read.
 *
 * <p>It accepts what idem's codec writes for that shape: every property of an object present (the codec writes them
 * all) and no other, primitives never null, numbers in range, enum constants the shape lists, dates and other values
 * in their text form, a sealed type's {@code "@type"} naming one of its subtypes. It is stricter than reading with
 * Jackson (no coercion of a string to a number, or of 1.5 to an int): a resolved result should look like one the
 * command wrote.
 */
@IdemInternal
public final class ResultShapes {

  private static final ObjectMapper JSON = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .build();

  private static final Set<String> LISTS = Set.of("Collection", "List", "ArrayList", "LinkedList");
  private static final Set<String> SETS = Set.of("Set", "SortedSet", "NavigableSet", "HashSet", "LinkedHashSet",
      "TreeSet");
  private static final Set<String> MAPS = Set.of("Map", "SortedMap", "NavigableMap", "HashMap", "LinkedHashMap",
      "TreeMap");

  private ResultShapes() {}

  /**
   * Checks {@code json} against {@code shape}.
   *
   * @param shape a result shape from a manifest ({@code void} for a command without a result)
   * @param json the result as JSON ({@code "null"} for a null result); null for a void command
   * @throws IllegalArgumentException naming the property path ({@code result.lines[0].price}) and what is wrong
   */
  public static void check(String shape, String json) {
    Node root = new Parser(shape).parseAll();
    if (root instanceof VoidNode) {
      if (json != null) {
        throw new IllegalArgumentException("the command returns nothing (void): resolve it without a result");
      }
      return;
    }
    if (json == null) {
      throw new IllegalArgumentException("the command returns " + root.describe()
          + ": give its result as JSON (\"null\" for a null result)");
    }
    JsonNode value;
    try {
      value = JSON.readTree(json);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the result is not JSON: " + e.getOriginalMessage() + " (line "
          + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")");
    }
    if (value == null || value.isMissingNode()) {
      throw new IllegalArgumentException("the result is empty: give it as JSON (\"null\" for a null result)");
    }
    String problem = root.check(value, "result");
    if (problem != null) {
      throw new IllegalArgumentException(problem);
    }
  }

  /** One node of a parsed shape; {@link #check} returns null when the value fits, else what is wrong. */
  private abstract static class Node {
    abstract String check(JsonNode value, String path);

    abstract String describe();

    boolean primitive() {
      return false;
    }
  }

  private static final class VoidNode extends Node {
    @Override
    String check(JsonNode value, String path) {
      return value.isNull() ? null : path + " must be absent: the command returns nothing";
    }

    @Override
    String describe() {
      return "void";
    }
  }

  /** A type the shape names that this check does not know (a newer processor's): anything is accepted. */
  private static final class Unknown extends Node {
    private final String name;

    Unknown(String name) {
      this.name = name;
    }

    @Override
    String check(JsonNode value, String path) {
      return null;
    }

    @Override
    String describe() {
      return name;
    }
  }

  /** A value type (primitive, box, String, number, java.time, UUID, ...), one JSON value. */
  private static final class Value extends Node {
    private final String name;
    private final boolean primitive;
    private final Function<JsonNode, String> rule;

    Value(String name, boolean primitive, Function<JsonNode, String> rule) {
      this.name = name;
      this.primitive = primitive;
      this.rule = rule;
    }

    @Override
    boolean primitive() {
      return primitive;
    }

    @Override
    String check(JsonNode value, String path) {
      if (value.isNull()) {
        return primitive ? path + " is null, but it is a " + name + ", which cannot be null" : null;
      }
      String problem = rule.apply(value);
      return problem == null ? null : path + " must be " + problem + " (" + name + "), got " + shortText(value);
    }

    @Override
    String describe() {
      return name;
    }
  }

  private static final class EnumNode extends Node {
    private final String name;
    private final List<String> constants;

    EnumNode(String name, List<String> constants) {
      this.name = name;
      this.constants = constants;
    }

    @Override
    String check(JsonNode value, String path) {
      if (value.isNull()) {
        return null;
      }
      if (value.isTextual() && constants.contains(value.textValue())) {
        return null;
      }
      return path + " must be one of " + String.join(", ", constants) + " (enum " + name + "), got "
          + shortText(value);
    }

    @Override
    String describe() {
      return name;
    }
  }

  private static final class OptionalNode extends Node {
    private final Node element;

    OptionalNode(Node element) {
      this.element = element;
    }

    @Override
    String check(JsonNode value, String path) {
      return value.isNull() ? null : element.check(value, path);
    }

    @Override
    String describe() {
      return "Optional<" + element.describe() + ">";
    }
  }

  /** A List, Set or array. */
  private static final class Sequence extends Node {
    private final String kind;
    private final Node element;

    Sequence(String kind, Node element) {
      this.kind = kind;
      this.element = element;
    }

    @Override
    String check(JsonNode value, String path) {
      if (value.isNull()) {
        return null;
      }
      if (!value.isArray()) {
        return path + " must be a JSON array (" + describe() + "), got " + shortText(value);
      }
      for (int i = 0; i < value.size(); i++) {
        String problem = element.check(value.get(i), path + "[" + i + "]");
        if (problem != null) {
          return problem;
        }
      }
      return null;
    }

    @Override
    String describe() {
      return kind.equals("[]") ? element.describe() + "[]" : kind + "<" + element.describe() + ">";
    }
  }

  private static final class MapNode extends Node {
    private final String kind;
    private final Node key;
    private final Node value;

    MapNode(String kind, Node key, Node value) {
      this.kind = kind;
      this.key = key;
      this.value = value;
    }

    @Override
    String check(JsonNode map, String path) {
      if (map.isNull()) {
        return null;
      }
      if (!map.isObject()) {
        return path + " must be a JSON object (" + describe() + "), got " + shortText(map);
      }
      for (Map.Entry<String, JsonNode> entry : map.properties()) {
        String problem = key.check(keyAsValue(entry.getKey()), path + "{" + entry.getKey() + "}(key)");
        if (problem == null) {
          problem = value.check(entry.getValue(), path + "{" + entry.getKey() + "}");
        }
        if (problem != null) {
          return problem;
        }
      }
      return null;
    }

    /** A JSON name read as the key type reads it: as a number where it is one. */
    private JsonNode keyAsValue(String name) {
      if (key instanceof Value numeric && !numeric.name.equals("java.lang.String")
          && !numeric.name.equals("java.lang.Character") && !numeric.name.equals("java.util.UUID")
          && !numeric.name.equals("java.time.LocalDate") && !numeric.name.equals("java.lang.Boolean")) {
        try {
          return JSON.getNodeFactory().numberNode(new BigInteger(name));
        } catch (NumberFormatException e) {
          return JSON.getNodeFactory().textNode(name);
        }
      }
      if (key instanceof Value bool && bool.name.equals("java.lang.Boolean")
          && (name.equals("true") || name.equals("false"))) {
        return JSON.getNodeFactory().booleanNode(Boolean.parseBoolean(name));
      }
      return JSON.getNodeFactory().textNode(name);
    }

    @Override
    String describe() {
      return kind + "<" + key.describe() + "," + value.describe() + ">";
    }
  }

  /** A record or class: exactly its properties, each checked. */
  private static final class ObjectNode extends Node {
    final String name;
    final Map<String, Node> properties = new LinkedHashMap<>();

    ObjectNode(String name) {
      this.name = name;
    }

    @Override
    String check(JsonNode value, String path) {
      if (value.isNull()) {
        return null;
      }
      if (!value.isObject()) {
        return path + " must be a JSON object (" + name + "), got " + shortText(value);
      }
      return checkProperties(value, path, Set.of());
    }

    String checkProperties(JsonNode value, String path, Set<String> allowedExtra) {
      for (Iterator<String> names = value.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!properties.containsKey(name) && !allowedExtra.contains(name)) {
          return path + "." + name + " is not a property of " + this.name + " (its properties: "
              + String.join(", ", properties.keySet()) + ")";
        }
      }
      for (Map.Entry<String, Node> property : properties.entrySet()) {
        JsonNode given = value.get(property.getKey());
        if (given == null) {
          return path + "." + property.getKey() + " is missing (" + property.getValue().describe() + " of "
              + this.name + "; idem stores every property, so a stored " + simpleName(this.name) + " has it)";
        }
        String problem = property.getValue().check(given, path + "." + property.getKey());
        if (problem != null) {
          return problem;
        }
      }
      return null;
    }

    @Override
    String describe() {
      return name;
    }
  }

  /** A sealed type: an object with {@code "@type"} naming one of the subtypes. */
  private static final class Sealed extends Node {
    final String name;
    final List<ObjectNode> subtypes = new ArrayList<>();

    Sealed(String name) {
      this.name = name;
    }

    @Override
    String check(JsonNode value, String path) {
      if (value.isNull()) {
        return null;
      }
      if (!value.isObject()) {
        return path + " must be a JSON object (" + name + "), got " + shortText(value);
      }
      JsonNode type = value.get("@type");
      List<String> names = subtypes.stream().map(sub -> erasure(sub.name)).toList();
      if (type == null || !type.isTextual()) {
        return path + " must name its class in \"@type\", one of " + String.join(", ", names) + " (subtypes of sealed "
            + name + ")";
      }
      String given = type.textValue().replace('$', '.');
      for (ObjectNode subtype : subtypes) {
        if (erasure(subtype.name).equals(given)) {
          return subtype.checkProperties(value, path + "<" + simpleName(erasure(subtype.name)) + ">", Set.of("@type"));
        }
      }
      return path + ".@type must be one of " + String.join(", ", names) + " (subtypes of sealed " + name + "), got "
          + shortText(type);
    }

    @Override
    String describe() {
      return name;
    }
  }

  /** A type named again inside itself (a tree): checked as its definition, found by name once parsed. */
  private static final class Reference extends Node {
    private final String name;
    private final Map<String, Node> definitions;

    Reference(String name, Map<String, Node> definitions) {
      this.name = name;
      this.definitions = definitions;
    }

    @Override
    String check(JsonNode value, String path) {
      Node definition = definitions.get(name);
      return definition == null ? null : definition.check(value, path);
    }

    @Override
    String describe() {
      return name;
    }
  }

  private static String erasure(String name) {
    int generic = name.indexOf('<');
    return generic < 0 ? name : name.substring(0, generic);
  }

  private static String simpleName(String name) {
    String erased = erasure(name);
    return erased.substring(erased.lastIndexOf('.') + 1);
  }

  private static String shortText(JsonNode value) {
    String text = value.toString();
    return text.length() > 60 ? text.substring(0, 57) + "..." : text;
  }

  /** Recursive descent over a shape's text, as {@code CodecTypeReader} in the processor writes it. */
  private static final class Parser {
    private final String text;
    private final Map<String, Node> definitions = new HashMap<>();
    private int at;

    Parser(String text) {
      this.text = text;
    }

    Node parseAll() {
      Node node = parse();
      if (at != text.length()) {
        throw malformed("unexpected '" + text.charAt(at) + "'");
      }
      return node;
    }

    private IllegalArgumentException malformed(String why) {
      return new IllegalArgumentException("the manifest's result shape cannot be read at character " + at + " ("
          + why + "): " + text);
    }

    private boolean take(String token) {
      if (text.startsWith(token, at)) {
        at += token.length();
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (at >= text.length() || text.charAt(at) != c) {
        throw malformed("expected '" + c + "'");
      }
      at++;
    }

    private Node parse() {
      Node node = parseElement();
      while (take("[]")) {
        if (node instanceof Value value && value.name.equals("byte")) {
          node = new Value("byte[]", false, v -> v.isTextual() || v.isBinary() ? null : "base64 text");
        } else if (node instanceof Value value && value.name.equals("char")) {
          node = new Value("char[]", false, v -> v.isTextual() ? null : "a JSON string");
        } else {
          node = new Sequence("[]", node);
        }
      }
      return node;
    }

    private Node parseElement() {
      if (take("enum ")) {
        String name = name();
        expect('[');
        int end = text.indexOf(']', at);
        if (end < 0) {
          throw malformed("an enum's constants do not end");
        }
        List<String> constants = new ArrayList<>();
        for (String constant : text.substring(at, end).split(",")) {
          if (!constant.isEmpty()) {
            constants.add(constant);
          }
        }
        at = end + 1;
        return new EnumNode(name, constants);
      }
      if (take("sealed ")) {
        String name = name();
        Sealed sealed = new Sealed(name);
        definitions.put(name, sealed);
        expect('[');
        if (!take("]")) {
          do {
            Node subtype = parseElement();
            if (!(subtype instanceof ObjectNode object)) {
              throw malformed("a sealed type's subtype is no class");
            }
            sealed.subtypes.add(object);
          } while (take("|"));
          expect(']');
        }
        return sealed;
      }
      int start = at;
      String name = name();
      if (name.isEmpty()) {
        throw malformed("expected a type");
      }
      if (!name.contains(".") && text.startsWith("<", at)) {
        if (name.equals("Optional")) {
          at++;
          Node element = parse();
          expect('>');
          return new OptionalNode(element);
        }
        if (LISTS.contains(name) || SETS.contains(name)) {
          at++;
          Node element = parse();
          expect('>');
          return new Sequence(name, element);
        }
        if (MAPS.contains(name)) {
          at++;
          Node key = parse();
          expect(',');
          Node value = parse();
          expect('>');
          return new MapNode(name, key, value);
        }
      }
      if (text.startsWith("<", at)) {
        skipTypeArguments();
      }
      String full = text.substring(start, at);
      if (take("{")) {
        ObjectNode object = new ObjectNode(full);
        definitions.putIfAbsent(erasure(full), object);
        if (!take("}")) {
          do {
            String property = name();
            expect(':');
            object.properties.put(property, parse());
          } while (take(","));
          expect('}');
        }
        return object;
      }
      Node value = value(name);
      if (value != null) {
        return value;
      }
      if (name.contains(".") && !name.startsWith("java.") && !name.startsWith("javax.")) {
        return new Reference(erasure(full), definitions); // named again inside itself: defined further out
      }
      return new Unknown(full);
    }

    private void skipTypeArguments() {
      int depth = 0;
      do {
        if (at >= text.length()) {
          throw malformed("type arguments do not end");
        }
        char c = text.charAt(at++);
        if (c == '<') {
          depth++;
        } else if (c == '>') {
          depth--;
        }
      } while (depth > 0);
    }

    private String name() {
      int start = at;
      while (at < text.length()) {
        char c = text.charAt(at);
        if (Character.isJavaIdentifierPart(c) || c == '.' || c == '$') {
          at++;
        } else {
          break;
        }
      }
      return text.substring(start, at);
    }
  }

  // ------------------------------------------------------------------------------------------------
  // Value types: what the codec writes for each (JavaTimeModule, dates as text)

  private static Node value(String name) {
    return switch (name) {
      case "void" -> new VoidNode();
      case "boolean" -> new Value(name, true, ResultShapes::bool);
      case "byte" -> new Value(name, true, v -> integral(v, Byte.MIN_VALUE, Byte.MAX_VALUE));
      case "short" -> new Value(name, true, v -> integral(v, Short.MIN_VALUE, Short.MAX_VALUE));
      case "int" -> new Value(name, true, v -> integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case "long" -> new Value(name, true, v -> integral(v, Long.MIN_VALUE, Long.MAX_VALUE));
      case "char" -> new Value(name, true, ResultShapes::character);
      case "float", "double" -> new Value(name, true, ResultShapes::number);
      case "java.lang.Boolean" -> new Value(name, false, ResultShapes::bool);
      case "java.lang.Byte" -> new Value(name, false, v -> integral(v, Byte.MIN_VALUE, Byte.MAX_VALUE));
      case "java.lang.Short" -> new Value(name, false, v -> integral(v, Short.MIN_VALUE, Short.MAX_VALUE));
      case "java.lang.Integer", "java.util.OptionalInt" ->
          new Value(name, false, v -> integral(v, Integer.MIN_VALUE, Integer.MAX_VALUE));
      case "java.lang.Long", "java.util.OptionalLong" ->
          new Value(name, false, v -> integral(v, Long.MIN_VALUE, Long.MAX_VALUE));
      case "java.lang.Character" -> new Value(name, false, ResultShapes::character);
      case "java.lang.Float", "java.lang.Double", "java.util.OptionalDouble", "java.math.BigDecimal" ->
          new Value(name, false, ResultShapes::number);
      case "java.math.BigInteger" -> new Value(name, false, v -> v.isIntegralNumber() ? null : "an integral number");
      case "java.lang.String" -> new Value(name, false, v -> v.isTextual() ? null : "a JSON string");
      case "java.util.UUID" -> new Value(name, false, v -> text(v, "a UUID", UUID::fromString));
      case "java.util.Locale" -> new Value(name, false, v -> v.isTextual() ? null : "a locale as a JSON string");
      case "java.util.Currency" -> new Value(name, false, v -> text(v, "an ISO 4217 currency code",
          Currency::getInstance));
      case "java.net.URI" -> new Value(name, false, v -> text(v, "a URI", ResultShapes::uri));
      case "java.util.Date", "java.time.Instant" -> new Value(name, false, v -> v.isIntegralNumber() ? null
          : text(v, "an instant like 2026-12-02T04:30:00Z", Instant::parse));
      case "java.time.LocalDate" -> new Value(name, false, v -> text(v, "a date like 2026-12-02", LocalDate::parse));
      case "java.time.LocalDateTime" ->
          new Value(name, false, v -> text(v, "a date and time like 2026-12-02T04:30:00", LocalDateTime::parse));
      case "java.time.LocalTime" -> new Value(name, false, v -> text(v, "a time like 04:30:00", LocalTime::parse));
      case "java.time.OffsetDateTime" -> new Value(name, false,
          v -> text(v, "a date and time with offset like 2026-12-02T04:30:00+01:00", OffsetDateTime::parse));
      case "java.time.OffsetTime" ->
          new Value(name, false, v -> text(v, "a time with offset like 04:30:00+01:00", OffsetTime::parse));
      case "java.time.ZonedDateTime" -> new Value(name, false, v -> text(v,
          "a date and time with zone like 2026-12-02T04:30:00+01:00[Europe/Paris]", ZonedDateTime::parse));
      case "java.time.Duration" -> new Value(name, false, v -> v.isNumber() ? null
          : text(v, "a duration like PT30S", Duration::parse));
      case "java.time.Period" -> new Value(name, false, v -> text(v, "a period like P1M", Period::parse));
      case "java.time.Year" -> new Value(name, false, v -> v.isIntegralNumber() ? null
          : text(v, "a year like 2026", Year::parse));
      case "java.time.YearMonth" -> new Value(name, false, v -> text(v, "a year and month like 2026-12",
          YearMonth::parse));
      case "java.time.MonthDay" -> new Value(name, false, v -> text(v, "a month and day like --12-02",
          MonthDay::parse));
      case "java.time.ZoneId" -> new Value(name, false, v -> text(v, "a zone id like Europe/Paris", ZoneId::of));
      case "java.time.ZoneOffset" -> new Value(name, false, v -> text(v, "an offset like +01:00", ZoneOffset::of));
      default -> null;
    };
  }

  private static String bool(JsonNode value) {
    return value.isBoolean() ? null : "true or false";
  }

  private static String number(JsonNode value) {
    return value.isNumber() ? null : "a JSON number";
  }

  private static String character(JsonNode value) {
    return value.isTextual() && value.textValue().length() == 1 ? null : "a string of one character";
  }

  private static String integral(JsonNode value, long min, long max) {
    if (!value.isIntegralNumber()) {
      return "an integral JSON number";
    }
    BigInteger number = value.bigIntegerValue();
    if (number.compareTo(BigInteger.valueOf(min)) < 0 || number.compareTo(BigInteger.valueOf(max)) > 0) {
      return "between " + min + " and " + max;
    }
    return null;
  }

  private static String text(JsonNode value, String what, Function<String, ?> parser) {
    if (!value.isTextual()) {
      return what + " as a JSON string";
    }
    try {
      parser.apply(value.textValue());
      return null;
    } catch (DateTimeException | IllegalArgumentException e) {
      return what;
    }
  }

  private static Object uri(String text) {
    try {
      return new URI(text);
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(e);
    }
  }
}
