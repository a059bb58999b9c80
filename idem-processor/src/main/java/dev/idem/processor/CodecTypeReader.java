package dev.idem.processor;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.RecordComponentElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.ExecutableType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;

/**
 * Reads a type the way idem's JSON codec (Jackson with default visibility, plus record-style accessors) writes and
 * reads it, and says either what shape its values have or why a value would not come back exactly.
 *
 * <p>Properties are what the codec writes: record components, public getters {@code getX()} / {@code isX()}
 * (boolean), public fields, and a public {@code x()} that returns a field {@code x} of the same type. Reading back
 * needs, for every property, a way in: the record's canonical constructor; or a no-argument constructor and a
 * setter or field of the same name; or one constructor whose parameter names are exactly the properties (its
 * names are passed to the runtime as a {@link Creator}, so {@code -parameters} is not needed). Interfaces and
 * abstract classes replay only when sealed: each permitted subtype is read the same way and listed in a
 * {@link SealedFamily}, the only classes the runtime will ever instantiate for that type.
 *
 * <p>What is written but would not read back as it was is a problem only where a value is read back: a
 * {@code Collection} or {@code Iterable} (read back as an ArrayList), a sorted set or map (its comparator is not
 * stored), and a property the creator takes that Jackson's {@code @JsonIgnore}, {@code @JsonIgnoreProperties} or
 * {@code @JsonIgnoreType} leaves out of the JSON. Each has a {@link Message} of its own, carried by the problem.
 *
 * <p>The shape is a canonical text of all that (properties sorted by name, enum constants, sealed subtypes), the
 * same on every build for the same types: a changed shape means records stored before do not read back as they
 * were. Its hash, which the runtime compares with each stored record's, leaves the enum constants out: a stored
 * constant reads back by its name whatever constants were added or reordered since, and one that was removed fails
 * the replay by itself (the previous-manifest check reports it at compile time, see {@link #enumConstants}).
 */
final class CodecTypeReader {

  /** Whether values only need to be written (a fingerprinted payload) or also read back (a stored result). */
  enum Use { WRITE, WRITE_AND_READ }

  /**
   * Why a value at {@code path} would not come back exactly, and how to fix the type.
   *
   * @param message the diagnostic for a result: {@link Message#RESULT_NOT_REPLAYABLE} with path, reason and fix, or
   *     a more specific one whose format takes the method name, the result type and then {@code arguments}
   * @param arguments the specific message's arguments after the method name and result type; empty for the general one
   */
  record Problem(String path, String reason, String fix, Message message, List<Object> arguments) {

    Problem {
      arguments = List.copyOf(arguments);
    }

    Problem(String path, String reason, String fix) {
      this(path, reason, fix, Message.RESULT_NOT_REPLAYABLE, List.of());
    }
  }

  /** A sealed type and its concrete permitted subtypes, nested sealed ones flattened, in name order. */
  record SealedFamily(TypeElement type, List<TypeElement> subtypes) {}

  /** A class read back through the constructor whose parameters are named like its properties. */
  record Creator(TypeElement type, List<String> propertyNames, List<TypeMirror> parameterTypes) {}

  /**
   * What the codec sees of a type.
   *
   * @param text the canonical shape, readable (written to the manifest)
   * @param hash 16 hex characters of the SHA-256 of {@code text} (stored with each record by the runtime)
   */
  record Shape(String text, String hash, List<SealedFamily> families, List<Creator> creators) {

    Shape {
      families = List.copyOf(families);
      creators = List.copyOf(creators);
    }
  }

  private static final MessageDigest SHA_256 = newSha256();

  /** The shape of a command without a result, and of every batch handler. */
  static final Shape VOID = new Shape("void", hash("void"), List.of(), List.of());

  /** An enum in a shape's text: {@code enum <qualified name>[<constants in declaration order>]}. */
  private static final Pattern ENUM = Pattern.compile("(enum [^\\[\\],\\s]+)\\[([^\\[\\]]*)\\]");

  /** Types that are one JSON value each and read back equal (java.time with the JavaTimeModule). */
  private static final Set<String> VALUES = Set.of(
      "java.lang.String", "java.lang.Boolean", "java.lang.Character", "java.lang.Byte", "java.lang.Short",
      "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.math.BigDecimal",
      "java.math.BigInteger", "java.util.UUID", "java.util.Locale", "java.util.Currency", "java.net.URI",
      "java.time.Instant", "java.time.LocalDate", "java.time.LocalDateTime", "java.time.LocalTime",
      "java.time.OffsetDateTime", "java.time.OffsetTime", "java.time.ZonedDateTime", "java.time.Duration",
      "java.time.Period", "java.time.Year", "java.time.YearMonth", "java.time.MonthDay", "java.time.ZoneId",
      "java.time.ZoneOffset", "java.util.OptionalInt", "java.util.OptionalLong", "java.util.OptionalDouble");

  /** Map keys the codec writes as JSON names and parses back. */
  private static final Set<String> MAP_KEYS = Set.of(
      "java.lang.String", "java.lang.Byte", "java.lang.Short", "java.lang.Integer", "java.lang.Long",
      "java.lang.Boolean", "java.lang.Character", "java.math.BigInteger", "java.util.UUID", "java.time.LocalDate");

  private static final Set<String> COLLECTIONS = Set.of(
      "java.util.Collection", "java.util.List", "java.util.Set", "java.util.SortedSet", "java.util.NavigableSet",
      "java.util.ArrayList", "java.util.LinkedList", "java.util.HashSet", "java.util.LinkedHashSet",
      "java.util.TreeSet");

  private static final Set<String> MAPS = Set.of(
      "java.util.Map", "java.util.SortedMap", "java.util.NavigableMap", "java.util.HashMap",
      "java.util.LinkedHashMap", "java.util.TreeMap");

  /** Sorted collections by the interface whose comparator they keep (not stored, so lost on replay). */
  private static final List<Map.Entry<String, String>> SORTED =
      List.of(Map.entry("java.util.SortedSet", "set"), Map.entry("java.util.SortedMap", "map"));

  private final Elements elements;
  private final Types types;
  private final Map<Element, Boolean> platformByType = new HashMap<>();

  CodecTypeReader(Elements elements, Types types) {
    this.elements = elements;
    this.types = types;
  }

  /** The type's shape, or the first problem found (a walk that reports one problem reads more clearly). */
  Result read(TypeMirror type, String rootPath, Use use) {
    Walk walk = new Walk(use);
    String text = walk.shape(type, rootPath);
    if (walk.problem != null) {
      return new Result(null, walk.problem);
    }
    List<SealedFamily> families = new ArrayList<>(walk.families.values());
    List<Creator> creators = new ArrayList<>(walk.creators.values());
    return new Result(new Shape(text, compatibilityHash(text), families, creators), null);
  }

  /**
   * The first problem with writing values of the type, if any: for a fingerprinted payload, which needs no shape
   * (and so no hash of one).
   */
  Optional<Problem> writeProblem(TypeMirror type, String rootPath) {
    Walk walk = new Walk(Use.WRITE);
    walk.shape(type, rootPath);
    return Optional.ofNullable(walk.problem);
  }

  /**
   * The hash the runtime stores with each record and compares on replay: of the shape's text without enum constants.
   *
   * @param text a shape's text, of this build or of a previous manifest
   * @return 16 hex characters
   */
  static String compatibilityHash(String text) {
    // Most shapes name no enum: no need to run the expression over them.
    return hash(text.contains("enum ") ? ENUM.matcher(text).replaceAll("$1") : text);
  }

  /**
   * The constants of every enum a shape's text names, by enum: what a record stored with that shape may hold, for
   * the previous-manifest check (a constant gone since would fail that record's replay).
   *
   * @param text a shape's text, of this build or of a previous manifest
   * @return enum name to its constants, in name order
   */
  static Map<String, Set<String>> enumConstants(String text) {
    Map<String, Set<String>> constants = new TreeMap<>();
    Matcher match = ENUM.matcher(text);
    while (match.find()) {
      Set<String> names = new LinkedHashSet<>();
      for (String name : match.group(2).split(",")) {
        if (!name.isEmpty()) {
          names.add(name);
        }
      }
      constants.put(match.group(1).substring("enum ".length()), names);
    }
    return constants;
  }

  /** Exactly one of {@code shape} and {@code problem}. */
  record Result(Shape shape, Problem problem) {}

  static String hash(String text) {
    byte[] digest = sha256().digest(text.getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(digest, 0, 8);
  }

  /**
   * A fresh SHA-256, cloned: {@code MessageDigest.getInstance} searches the security providers on every call, and
   * a result's shape is hashed for every command. The prototype itself is never updated, so clones are independent.
   */
  private static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA_256.clone();
    } catch (CloneNotSupportedException e) {
      return newSha256(); // a provider whose digest cannot be cloned
    }
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /** One walk over a type: stops at the first problem; remembers sealed families and creators by type name. */
  private final class Walk {

    private final Use use;
    private final Set<String> inProgress = new HashSet<>();
    private final Map<String, SealedFamily> families = new TreeMap<>();
    private final Map<String, Creator> creators = new TreeMap<>();
    private Problem problem;

    /**
     * Per type, its methods as {@code Elements.getAllMembers} lists them and its instance fields: a record's
     * properties, each of its components' Jackson annotations and its setters all ask again for the same type, and
     * javac assembles {@code getAllMembers} anew on every call. Kept for one walk only, as javac renews the symbols
     * of source types between rounds.
     */
    private final Map<TypeElement, List<ExecutableElement>> methodsByType = new HashMap<>();
    private final Map<TypeElement, Map<String, VariableElement>> fieldsByType = new HashMap<>();
    /** Per type, its instance getters and accessors by the property each stands for, in {@link #methodsOf} order. */
    private final Map<TypeElement, Map<String, List<ExecutableElement>>> accessorsByType = new HashMap<>();

    Walk(Use use) {
      this.use = use;
    }

    // Here and below, loops and plain lookups rather than lambdas on the path every result and payload type takes:
    // the processor is loaded cold by each compilation, which links every lambda call site anew (LambdaMetafactory
    // spins a class for it).

    private List<ExecutableElement> methodsOf(TypeElement element) {
      List<ExecutableElement> methods = methodsByType.get(element);
      if (methods == null) {
        methods = ElementFilter.methodsIn(elements.getAllMembers(element));
        methodsByType.put(element, methods);
      }
      return methods;
    }

    /**
     * The type's instance methods that stand for a property (getters, record-style accessors, as
     * {@link #propertyOf} reads them), by property: found once per type, where each property's Jackson
     * annotations are looked up, instead of going through every method of the type again for each property.
     */
    private Map<String, List<ExecutableElement>> accessorsOf(TypeElement element) {
      Map<String, List<ExecutableElement>> accessors = accessorsByType.get(element);
      if (accessors == null) {
        accessors = new HashMap<>();
        Map<String, VariableElement> fields = fieldsOf(element);
        for (ExecutableElement method : methodsOf(element)) {
          if (method.getParameters().isEmpty() && !method.getModifiers().contains(Modifier.STATIC)
              && method.getReturnType().getKind() != TypeKind.VOID && !isPlatform(method.getEnclosingElement())) {
            String property = propertyOf(method, method.getReturnType(), fields);
            if (property != null) {
              List<ExecutableElement> methods = accessors.get(property);
              if (methods == null) {
                methods = new ArrayList<>();
                accessors.put(property, methods);
              }
              methods.add(method);
            }
          }
        }
        accessorsByType.put(element, accessors);
      }
      return accessors;
    }

    private Map<String, VariableElement> fieldsOf(TypeElement element) {
      Map<String, VariableElement> fields = fieldsByType.get(element);
      if (fields == null) {
        fields = instanceFields(element);
        fieldsByType.put(element, fields);
      }
      return fields;
    }

    private String fail(String path, String reason, String fix) {
      return fail(new Problem(path, reason, fix));
    }

    private String fail(Problem found) {
      if (problem == null) {
        problem = found;
      }
      return "?";
    }

    String shape(TypeMirror type, String path) {
      if (problem != null) {
        return "?";
      }
      switch (type.getKind()) {
        case VOID:
          return "void";
        case BOOLEAN: case BYTE: case SHORT: case INT: case LONG: case CHAR: case FLOAT: case DOUBLE:
          return type.toString();
        case ARRAY:
          return shape(((ArrayType) type).getComponentType(), path + "[]") + "[]";
        case DECLARED:
          return declared((DeclaredType) type, path);
        case WILDCARD:
          return fail(path, "is a wildcard (" + type + "), so the codec does not know what to read back",
              "declare the element type itself, e.g. List<Receipt> instead of List<?>");
        case TYPEVAR:
          return fail(path, "is the type variable " + type + ", unknown when the result is read back",
              "declare a concrete type");
        default:
          return fail(path, "has type " + type + ", which the codec cannot store", "declare a data type");
      }
    }

    private String declared(DeclaredType type, String path) {
      TypeElement element = (TypeElement) type.asElement();
      String name = element.getQualifiedName().toString();
      List<? extends TypeMirror> arguments = type.getTypeArguments();
      if (VALUES.contains(name) || name.equals("java.util.Date")) {
        return name;
      }
      if (element.getKind() == ElementKind.ENUM) {
        StringJoiner constants = new StringJoiner(",", "[", "]");
        for (VariableElement field : ElementFilter.fieldsIn(element.getEnclosedElements())) {
          if (field.getKind() == ElementKind.ENUM_CONSTANT) {
            constants.add(field.getSimpleName().toString());
          }
        }
        return "enum " + name + constants;
      }
      if (use == Use.WRITE_AND_READ) {
        String sorted = sortedKind(type);
        if (sorted != null) {
          return fail(new Problem(path, "is declared " + type + ", a sorted " + sorted + " whose comparator cannot be"
              + " stored, so a retry would get it in natural order", "return a List, LinkedHashSet or LinkedHashMap,"
              + " whose order replays exactly", Message.RESULT_COMPARATOR_LOST, List.of(path, type, sorted)));
        }
        if (name.equals("java.util.Collection") || name.equals("java.lang.Iterable")) {
          return fail(new Problem(path, "is declared " + type + ", so a retry would get an ArrayList whatever"
              + " collection was returned", "declare List, Set or another concrete collection interface",
              Message.RESULT_COLLECTION_KIND_LOST, List.of(path, type)));
        }
      }
      if (name.equals("java.util.Optional")) {
        if (arguments.isEmpty()) {
          return fail(path, "is a raw Optional", "declare its type argument, e.g. Optional<Receipt>");
        }
        return "Optional<" + shape(arguments.get(0), path) + ">";
      }
      if (COLLECTIONS.contains(name)) {
        if (arguments.isEmpty()) {
          return fail(path, "is a raw " + element.getSimpleName(), "declare its element type, e.g. List<Receipt>");
        }
        return element.getSimpleName() + "<" + shape(arguments.get(0), path + "[]") + ">";
      }
      if (MAPS.contains(name)) {
        if (arguments.isEmpty()) {
          return fail(path, "is a raw " + element.getSimpleName(), "declare key and value types, e.g."
              + " Map<String, Integer>");
        }
        TypeMirror key = arguments.get(0);
        boolean keyOk = key.getKind() == TypeKind.DECLARED
            && (MAP_KEYS.contains(((TypeElement) ((DeclaredType) key).asElement()).getQualifiedName().toString())
                || ((DeclaredType) key).asElement().getKind() == ElementKind.ENUM);
        if (!keyOk) {
          return fail(path, "is a map keyed by " + key + ", which the codec cannot write as a JSON name and parse"
              + " back", "key the map by String, an enum, UUID or an integral number");
        }
        return element.getSimpleName() + "<" + shape(key, path + "{}") + "," + shape(arguments.get(1), path + "{}")
            + ">";
      }
      if (name.equals("java.lang.Object")) {
        if (use == Use.WRITE) {
          return name;
        }
        return fail(path, "is declared Object, so a retry would get a Map or List instead of the original type",
            "declare the concrete type");
      }
      if (name.startsWith("java.") || name.startsWith("javax.") || name.startsWith("jdk.")) {
        if (use == Use.WRITE) {
          return name;
        }
        return fail(path, "is " + name + ", which is not a data type the codec reads back",
            "declare a record, an enum, a String, a number, a java.time type, a List, Set or Map of those");
      }
      if (element.getModifiers().contains(Modifier.SEALED)) {
        return sealed(type, element, path);
      }
      if (element.getKind().isInterface() || element.getModifiers().contains(Modifier.ABSTRACT)) {
        if (use == Use.WRITE) {
          return name; // fingerprinted as whatever the value's class is
        }
        return fail(path, "is " + (element.getKind().isInterface() ? "the interface " : "the abstract class ")
            + name + ", so a retry cannot know which class to create", "make it sealed (sealed interface "
            + element.getSimpleName() + " permits ...), idem then replays the exact subtype, or declare the"
            + " concrete type");
      }
      return object(type, element, path);
    }

    /** "set" or "map" if values of the type are sorted by a comparator (SortedSet, TreeMap, ...), else null. */
    private String sortedKind(DeclaredType type) {
      Set<String> supertypes = TypeMirrors.supertypeNames(types, type);
      for (Map.Entry<String, String> sorted : SORTED) {
        if (supertypes.contains(sorted.getKey())) {
          return sorted.getValue();
        }
      }
      return null;
    }

    private String sealed(DeclaredType type, TypeElement element, String path) {
      String name = element.getQualifiedName().toString();
      if (!inProgress.add(name)) {
        return name;
      }
      List<TypeElement> concrete = new ArrayList<>();
      collectPermitted(element, concrete, path);
      concrete.sort(Comparator.comparing(sub -> sub.getQualifiedName().toString()));
      List<String> shapes = new ArrayList<>();
      for (TypeElement sub : concrete) {
        shapes.add(object((DeclaredType) sub.asType(), sub, path + "<" + sub.getSimpleName() + ">"));
      }
      inProgress.remove(name);
      if (use == Use.WRITE_AND_READ) {
        families.putIfAbsent(name, new SealedFamily(element, concrete));
      }
      return "sealed " + name + String.join("|", shapes).transform(s -> "[" + s + "]");
    }

    private void collectPermitted(TypeElement element, List<TypeElement> concrete, String path) {
      for (TypeMirror permitted : element.getPermittedSubclasses()) {
        TypeElement sub = (TypeElement) types.asElement(permitted);
        if (!sub.getTypeParameters().isEmpty()) {
          fail(path, "may be the generic " + sub.getQualifiedName() + ", whose type arguments a retry cannot know",
              "make the permitted subtypes non-generic");
        } else if (sub.getModifiers().contains(Modifier.SEALED)) {
          collectPermitted(sub, concrete, path);
        } else if (sub.getModifiers().contains(Modifier.NON_SEALED)) {
          fail(path, "may be the non-sealed " + sub.getQualifiedName() + ", whose subclasses a retry cannot know",
              "make " + sub.getSimpleName() + " final or sealed");
        } else if (!sub.getModifiers().contains(Modifier.ABSTRACT) && !sub.getKind().isInterface()) {
          concrete.add(sub);
        }
      }
    }

    /** A record or a class: its properties, each checked, and how the codec gets the value back. */
    private String object(DeclaredType type, TypeElement element, String path) {
      String name = element.getQualifiedName().toString();
      if (!inProgress.add(name + type)) {
        return name; // a recursive type (a tree): its shape is written out once, where it starts
      }
      Map<String, TypeMirror> properties = properties(type, element, path);
      if (problem == null && use == Use.WRITE_AND_READ) {
        readBack(type, element, properties, path);
      }
      StringBuilder shape = new StringBuilder(type.toString()).append('{');
      String separator = "";
      for (Map.Entry<String, TypeMirror> property : new TreeMap<>(properties).entrySet()) {
        shape.append(separator).append(property.getKey()).append(':')
            .append(shape(property.getValue(), path + "." + property.getKey()));
        separator = ",";
      }
      inProgress.remove(name + type);
      return shape.append('}').toString();
    }

    /** Name to type of every property the codec writes, in declaration order; a problem for hidden state. */
    private Map<String, TypeMirror> properties(DeclaredType type, TypeElement element, String path) {
      Map<String, TypeMirror> properties = new LinkedHashMap<>();
      Map<String, VariableElement> fields = fieldsOf(element);
      if (element.getKind() == ElementKind.RECORD) {
        for (RecordComponentElement component : element.getRecordComponents()) {
          properties.put(component.getSimpleName().toString(),
              ((ExecutableType) types.asMemberOf(type, component.getAccessor())).getReturnType());
        }
      }
      for (VariableElement field : fields.values()) {
        if (field.getModifiers().contains(Modifier.PUBLIC)) {
          properties.putIfAbsent(field.getSimpleName().toString(), types.asMemberOf(type, field));
        }
      }
      for (ExecutableElement method : methodsOf(element)) {
        if (!method.getModifiers().contains(Modifier.PUBLIC) || method.getModifiers().contains(Modifier.STATIC)
            || !method.getParameters().isEmpty() || method.getReturnType().getKind() == TypeKind.VOID
            || isPlatform(method.getEnclosingElement())) {
          continue;
        }
        TypeMirror returned = ((ExecutableType) types.asMemberOf(type, method)).getReturnType();
        String property = propertyOf(method, returned, fields);
        if (property != null) {
          properties.putIfAbsent(property, returned);
        }
      }
      for (VariableElement field : fields.values()) {
        String fieldName = field.getSimpleName().toString();
        if (!properties.containsKey(fieldName) && !field.getModifiers().contains(Modifier.TRANSIENT)) {
          fail(path + "." + fieldName, "is the field " + element.getSimpleName() + "." + fieldName + ", which the"
              + " codec cannot see: it is not public and has no public getter " + getter(fieldName) + "() or"
              + " accessor " + fieldName + "(), so it would be " + (use == Use.WRITE ? "left out of the fingerprint"
              : "lost on replay"), "add a public accessor " + fieldName + "() or " + getter(fieldName)
              + "(), make the type a record, or mark the field transient if it is not part of the value");
          break;
        }
      }
      return properties;
    }

    /** The property a public no-argument method stands for, or null. */
    private String propertyOf(ExecutableElement method, TypeMirror returned, Map<String, VariableElement> fields) {
      String name = method.getSimpleName().toString();
      if (name.startsWith("get") && name.length() > 3 && Character.isUpperCase(name.charAt(3))) {
        return mangle(name.substring(3));
      }
      if (name.startsWith("is") && name.length() > 2 && Character.isUpperCase(name.charAt(2))
          && returned.getKind() == TypeKind.BOOLEAN) {
        return mangle(name.substring(2));
      }
      VariableElement field = fields.get(name);
      if (field != null && types.isSameType(field.asType(), method.getReturnType())) {
        return name; // amountCents() returning the field amountCents: a record-style accessor
      }
      return null;
    }

    /** How the codec gets every property back; a problem if one has no way in. */
    private void readBack(DeclaredType type, TypeElement element, Map<String, TypeMirror> properties, String path) {
      if (element.getKind() == ElementKind.RECORD) {
        Set<String> components = new HashSet<>();
        for (RecordComponentElement component : element.getRecordComponents()) {
          components.add(component.getSimpleName().toString());
        }
        for (String property : properties.keySet()) {
          if (!components.contains(property)) {
            fail(path + "." + property, "is written from the getter of record " + element.getSimpleName()
                + " but is no component, so reading it back fails", "rename the method so that it is no getter,"
                + " or make it a component");
            return;
          }
        }
        for (RecordComponentElement component : element.getRecordComponents()) {
          checkNotIgnored(element, component.getSimpleName().toString(), properties,
              "the canonical constructor of record " + element.getSimpleName(), path);
        }
        return;
      }
      if (element.getNestingKind() == NestingKind.MEMBER && !element.getModifiers().contains(Modifier.STATIC)) {
        fail(path, "is the inner class " + element.getQualifiedName() + ", which needs an enclosing instance",
            "declare it static");
        return;
      }
      List<ExecutableElement> constructors = ElementFilter.constructorsIn(element.getEnclosedElements());
      boolean noArgs = false;
      for (ExecutableElement constructor : constructors) {
        noArgs |= constructor.getParameters().isEmpty();
      }
      if (noArgs) {
        Map<String, VariableElement> fields = fieldsOf(element);
        for (String property : properties.keySet()) {
          if (!fields.containsKey(property) && !hasSetter(element, property)) {
            fail(path + "." + property, "is written from a getter of " + element.getSimpleName() + ", but there"
                + " is no field " + property + " or setter " + setter(property) + "(...) to read it back into",
                "add a setter, or rename the method so that it is no getter");
            return;
          }
        }
        return;
      }
      for (ExecutableElement constructor : constructors) {
        if (constructor.getModifiers().contains(Modifier.PRIVATE)) {
          continue;
        }
        List<String> names = new ArrayList<>();
        for (VariableElement parameter : constructor.getParameters()) {
          names.add(parameter.getSimpleName().toString());
        }
        if (names.size() == properties.size() && properties.keySet().containsAll(names)) {
          ExecutableType constructorType = (ExecutableType) types.asMemberOf(type, constructor);
          creators.putIfAbsent(element.getQualifiedName().toString(),
              new Creator(element, names, List.copyOf(constructorType.getParameterTypes())));
          for (String property : names) {
            checkNotIgnored(element, property, properties, "the constructor " + element.getSimpleName() + "("
                + String.join(", ", names) + ")", path);
          }
          return;
        }
      }
      fail(path, "is " + element.getQualifiedName() + ", which has no no-argument constructor and no constructor"
          + " whose parameters are named exactly like its properties " + properties.keySet(), "add a constructor"
          + " taking " + String.join(", ", properties.keySet()) + ", or make it a record");
    }

    /**
     * A property the creator takes must be in the stored JSON: Jackson's {@code @JsonIgnore} on its field or
     * accessor, its name in {@code @JsonIgnoreProperties} on the type, or {@code @JsonIgnoreType} on its type would
     * leave it out, and reading the result back would fail.
     */
    private void checkNotIgnored(TypeElement element, String property, Map<String, TypeMirror> properties,
                                 String creator, String path) {
      if (problem != null) {
        return;
      }
      String dropper = null;
      String removal = null;
      String owner = element.getSimpleName() + "." + property;
      for (Element annotated : annotatedAs(element, property)) {
        Optional<AnnotationMirror> ignore = Annotations.find(annotated, JSON_IGNORE);
        if (ignore.isPresent() && !Boolean.FALSE.equals(annotationValue(ignore.get(), "value"))) {
          dropper = "@JsonIgnore on " + owner;
          removal = "@JsonIgnore";
          break;
        }
      }
      for (TypeElement current = element; dropper == null && current != null && !isPlatform(current);
           current = superclassOf(current)) {
        Optional<AnnotationMirror> ignoreProperties = Annotations.find(current, JSON_IGNORE_PROPERTIES);
        Object listed = ignoreProperties.isPresent() ? annotationValue(ignoreProperties.get(), "value") : null;
        if (listed instanceof List<?> names && listsProperty(names, property)) {
          dropper = "@JsonIgnoreProperties on " + current.getSimpleName();
          removal = "\"" + property + "\" from @JsonIgnoreProperties";
        }
      }
      TypeMirror type = properties.get(property);
      if (dropper == null && type != null && type.getKind() == TypeKind.DECLARED
          && Annotations.find(((DeclaredType) type).asElement(), JSON_IGNORE_TYPE).isPresent()) {
        dropper = "@JsonIgnoreType on its type " + ((DeclaredType) type).asElement().getSimpleName();
        removal = "@JsonIgnoreType";
      }
      if (dropper != null) {
        String at = path + "." + property;
        fail(new Problem(at, "is dropped by " + dropper + ", but " + creator + " needs it, so reading the result"
            + " back fails", "remove " + removal + ", or leave the property out of the type",
            Message.RESULT_PROPERTY_IGNORED, List.of(at, dropper, creator, removal)));
      }
    }

    /** The record component, field and accessors that make up one property, where Jackson looks for annotations. */
    private List<Element> annotatedAs(TypeElement element, String property) {
      List<Element> annotated = new ArrayList<>();
      if (element.getKind() == ElementKind.RECORD) {
        for (RecordComponentElement component : element.getRecordComponents()) {
          if (component.getSimpleName().contentEquals(property)) {
            annotated.add(component);
            annotated.add(component.getAccessor());
          }
        }
      }
      Map<String, VariableElement> fields = fieldsOf(element);
      VariableElement field = fields.get(property);
      if (field != null) {
        annotated.add(field);
      }
      annotated.addAll(accessorsOf(element).getOrDefault(property, List.of()));
      return annotated;
    }

    private boolean hasSetter(TypeElement element, String property) {
      for (ExecutableElement method : methodsOf(element)) {
        if (method.getSimpleName().contentEquals(setter(property)) && method.getParameters().size() == 1
            && !method.getModifiers().contains(Modifier.STATIC)) {
          return true;
        }
      }
      return false;
    }

    /** Whether {@code @JsonIgnoreProperties}' names hold {@code property}. */
    private static boolean listsProperty(List<?> names, String property) {
      for (Object name : names) {
        if (name instanceof AnnotationValue value && property.equals(value.getValue())) {
          return true;
        }
      }
      return false;
    }
  }

  /** Jackson's annotations, found by name: the processor does not depend on Jackson. */
  private static final String JSON_IGNORE = "com.fasterxml.jackson.annotation.JsonIgnore";
  private static final String JSON_IGNORE_PROPERTIES = "com.fasterxml.jackson.annotation.JsonIgnoreProperties";
  private static final String JSON_IGNORE_TYPE = "com.fasterxml.jackson.annotation.JsonIgnoreType";

  /** An annotation member's value, explicit or default; null if the member does not exist. */
  private Object annotationValue(AnnotationMirror mirror, String member) {
    for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry
        : elements.getElementValuesWithDefaults(mirror).entrySet()) {
      if (entry.getKey().getSimpleName().contentEquals(member)) {
        return entry.getValue().getValue();
      }
    }
    return null;
  }

  private TypeElement superclassOf(TypeElement element) {
    return element.getSuperclass().getKind() == TypeKind.DECLARED
        ? (TypeElement) types.asElement(element.getSuperclass()) : null;
  }

  /** Instance fields of the class and its superclasses up to the platform's, by name. */
  private Map<String, VariableElement> instanceFields(TypeElement element) {
    Map<String, VariableElement> fields = new LinkedHashMap<>();
    for (TypeElement current = element; current != null && !isPlatform(current);
         current = current.getSuperclass().getKind() == TypeKind.DECLARED
             ? (TypeElement) types.asElement(current.getSuperclass()) : null) {
      for (VariableElement field : ElementFilter.fieldsIn(current.getEnclosedElements())) {
        if (!field.getModifiers().contains(Modifier.STATIC)) {
          fields.putIfAbsent(field.getSimpleName().toString(), field);
        }
      }
    }
    return fields;
  }

  private boolean isPlatform(Element type) {
    // Asked for every method of every type walked, most of them Object's and Record's: javac converts a name to a
    // string on each getQualifiedName().toString(), so the answer is kept per type (javac's symbols are the same
    // objects for the whole compilation; a source type's are renewed between rounds and simply asked again).
    Boolean platform = platformByType.get(type);
    if (platform == null) {
      String name = type instanceof TypeElement typeElement ? typeElement.getQualifiedName().toString() : "";
      platform = name.startsWith("java.") || name.startsWith("javax.");
      platformByType.put(type, platform);
    }
    return platform;
  }

  /** Jackson's default naming: {@code getAmountCents} → amountCents, {@code getURL} → url. */
  static String mangle(String afterPrefix) {
    StringBuilder name = new StringBuilder(afterPrefix);
    for (int i = 0; i < name.length() && Character.isUpperCase(name.charAt(i)); i++) {
      name.setCharAt(i, Character.toLowerCase(name.charAt(i)));
    }
    return name.toString();
  }

  private static String getter(String property) {
    return "get" + Character.toUpperCase(property.charAt(0)) + property.substring(1);
  }

  private static String setter(String property) {
    return "set" + Character.toUpperCase(property.charAt(0)) + property.substring(1);
  }
}
