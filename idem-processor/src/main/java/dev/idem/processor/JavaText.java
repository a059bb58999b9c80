package dev.idem.processor;

import com.palantir.javapoet.ArrayTypeName;
import com.palantir.javapoet.ClassName;
import com.palantir.javapoet.ParameterizedTypeName;
import com.palantir.javapoet.TypeName;
import com.palantir.javapoet.TypeVariableName;
import com.palantir.javapoet.WildcardTypeName;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Java source text written directly, laid out as JavaPoet 0.22 lays out the same code (so generated files did not
 * change when the writers stopped using JavaPoet's format engine), with JavaPoet's type names as the vocabulary for
 * types.
 *
 * <p>Why not JavaPoet's {@code TypeSpec} and {@code JavaFile}: the processor runs cold in every compilation (a new
 * class loader each time), and JavaPoet's format engine, which parses every format string, builds a tree of specs
 * and emits each file twice (once to collect its imports), was the largest part of what the processor itself adds
 * to a compile, interpreted and JIT-compiled anew each time. Here the text is appended once; only the type names
 * wait for the imports, which are decided when the file is rendered.
 *
 * <p>The layout rules kept from JavaPoet: two-space indentation; a multi-line statement ({@link #beginStatement})
 * continues four spaces deeper; Javadoc lines start with {@code " * "}; and a type is imported unless its simple
 * name is taken (by a type of the generated class, by a type variable in scope, by an earlier import or by a type
 * of the same package that is referred to), the first type of a simple name winning the import. Lines wrap only at
 * the wrapping points a writer marks ({@link #wrappingSpace}, {@link #zeroWidthSpace}: in method signatures), at
 * 100 columns, continuing four spaces deeper.
 */
final class JavaText {

  static final String INDENT = "  ";
  private static final int COLUMN_LIMIT = 100;

  /** A type whose body or header is being written: its simple name and the simple names of its member types. */
  record TypeFrame(String name, Set<String> memberTypes) {}

  /** A type name, with what decides how it is written: the enclosing types, the type variables in scope. */
  private record TypeUse(TypeName type, List<TypeFrame> frames, List<String> typeVariables, boolean varargs) {}

  /** A point where the line may wrap: a space (or nothing) if what follows fits in the line, else a new line. */
  private record Wrap(int indentLevel, boolean space) {}

  private final List<Object> parts = new ArrayList<>();
  private final StringBuilder text = new StringBuilder();
  private int indentLevel;
  private boolean javadoc;
  private boolean trailingNewline;
  private int statementLine = -1;
  private char lastChar;
  private List<TypeFrame> frames = List.of();
  private List<String> typeVariables = List.of();

  /** An empty text at the top level of a file. */
  JavaText() {}

  /**
   * An empty text that continues where {@code position} is: the same indentation, enclosing types and type
   * variables, at the start of a line. Members are written each into their own text and appended in the order
   * Java classes list them (static fields, fields, constructors, methods, member types).
   */
  static JavaText at(JavaText position) {
    JavaText text = new JavaText();
    text.indentLevel = position.indentLevel;
    text.frames = position.frames;
    text.typeVariables = position.typeVariables;
    text.trailingNewline = true;
    text.lastChar = '\n';
    return text;
  }

  /** Appends a text started {@link #at} this one's position. */
  JavaText append(JavaText other) {
    flushText();
    other.flushText();
    parts.addAll(other.parts);
    trailingNewline = other.trailingNewline;
    if (other.lastChar != 0) {
      lastChar = other.lastChar;
    }
    return this;
  }

  /** Text with no type names in it; a {@code \n} ends the line (the next one is indented when it has content). */
  JavaText text(String s) {
    int start = 0;
    boolean first = true;
    while (true) {
      int newline = s.indexOf('\n', start);
      int end = newline < 0 ? s.length() : newline;
      if (!first) {
        if (javadoc && trailingNewline) {
          indentation();
          out(" *");
        }
        out('\n');
        trailingNewline = true;
        if (statementLine != -1) {
          if (statementLine == 0) {
            indentLevel += 2; // the statement goes on in a second line: its rest is indented deeper
          }
          statementLine++;
        }
      }
      first = false;
      if (end > start) {
        lineStart();
        text.append(s, start, end);
        lastChar = s.charAt(end - 1);
        trailingNewline = false;
      }
      if (newline < 0) {
        return this;
      }
      start = newline + 1;
    }
  }

  /** A type's name: simple where it is imported (or needs no import), qualified where its simple name is taken. */
  JavaText type(TypeName type) {
    return type(type, false);
  }

  /** The type of a varargs parameter: {@code String...} for {@code String[]}. */
  JavaText varargsType(TypeName type) {
    return type(type, true);
  }

  private JavaText type(TypeName type, boolean varargs) {
    lineStart();
    flushText();
    parts.add(new TypeUse(type, frames, typeVariables, varargs));
    trailingNewline = false;
    lastChar = 'T'; // a name ends with a letter, a digit, ']' or '>': not a new line
    return this;
  }

  /** {@code "value"}: the string as a Java literal, escaped as JavaPoet's {@code $S} escapes it. */
  JavaText literal(String value) {
    return text(value == null ? "null" : stringLiteral(value));
  }

  /** Where JavaPoet's {@code $W} is: a space, or a new line four spaces deeper if what follows would not fit. */
  JavaText wrappingSpace() {
    flushText();
    parts.add(new Wrap(indentLevel + 2, true));
    return this;
  }

  /** Where JavaPoet's {@code $Z} is: nothing, or a new line four spaces deeper if what follows would not fit. */
  JavaText zeroWidthSpace() {
    flushText();
    parts.add(new Wrap(indentLevel + 2, false));
    return this;
  }

  JavaText indent() {
    indentLevel++;
    return this;
  }

  JavaText unindent() {
    indentLevel--;
    return this;
  }

  JavaText indent(int levels) {
    indentLevel += levels;
    return this;
  }

  JavaText unindent(int levels) {
    indentLevel -= levels;
    return this;
  }

  /** A statement begins: from its second line on, it is indented four spaces deeper (JavaPoet's {@code $[}). */
  JavaText beginStatement() {
    statementLine = 0;
    return this;
  }

  /** The statement ended (JavaPoet's {@code $]}). */
  JavaText endStatement() {
    if (statementLine > 0) {
      indentLevel -= 2;
    }
    statementLine = -1;
    return this;
  }

  /** {@code text;} and a new line, as one statement: {@code addStatement}. */
  JavaText statement(String s) {
    return beginStatement().text(s).text(";\n").endStatement();
  }

  /** Opens a Javadoc comment; what follows is its text until {@link #endJavadoc}. */
  JavaText beginJavadoc() {
    text("/**\n");
    javadoc = true;
    return this;
  }

  /** Closes the Javadoc comment, on a line of its own. */
  JavaText endJavadoc() {
    endLine();
    javadoc = false;
    return text(" */\n");
  }

  /** Ends the line unless it has just ended (JavaPoet ends a method body and a Javadoc comment so). */
  JavaText endLine() {
    if (lastChar != '\n') {
      text("\n");
    }
    return this;
  }

  /** From here on, type names are written inside {@code frame} (a type's header: no member types yet). */
  JavaText pushType(TypeFrame frame) {
    List<TypeFrame> pushed = new ArrayList<>(frames.size() + 1);
    pushed.addAll(frames);
    pushed.add(frame);
    frames = List.copyOf(pushed);
    return this;
  }

  JavaText popType() {
    frames = List.copyOf(frames.subList(0, frames.size() - 1));
    return this;
  }

  /** Type variables declared here are in scope (they take their simple names) until {@link #popTypeVariables}. */
  JavaText pushTypeVariables(List<TypeVariableName> variables) {
    if (!variables.isEmpty()) {
      List<String> names = new ArrayList<>(typeVariables);
      for (TypeVariableName variable : variables) {
        names.add(variable.name());
      }
      typeVariables = List.copyOf(names);
    }
    return this;
  }

  JavaText popTypeVariables(List<TypeVariableName> variables) {
    if (!variables.isEmpty()) {
      typeVariables = List.copyOf(typeVariables.subList(0, typeVariables.size() - variables.size()));
    }
    return this;
  }

  private void lineStart() {
    if (trailingNewline) {
      indentation();
      if (javadoc) {
        out(" * ");
      }
    }
  }

  private void indentation() {
    for (int i = 0; i < indentLevel; i++) {
      text.append(INDENT);
    }
  }

  private void out(String s) {
    text.append(s);
    lastChar = s.charAt(s.length() - 1);
  }

  private void out(char c) {
    text.append(c);
    lastChar = c;
  }

  private void flushText() {
    if (text.length() > 0) {
      parts.add(text.toString());
      text.setLength(0);
    }
  }

  /**
   * The compilation unit: the package, the imports this text's type names need (sorted, none for
   * {@code java.lang}), and the text, whose top-level type is {@code topLevelName}.
   */
  String render(String packageName) {
    flushText();
    Names names = new Names(packageName);
    // First the imports, from every name in the order the text uses them (the first type of a simple name wins).
    for (Object part : parts) {
      if (part instanceof TypeUse use) {
        names.write(use, null);
      }
    }
    Map<String, ClassName> imports = names.imports();
    names.imported = imports;

    StringBuilder out = new StringBuilder(text.capacity() + 1024);
    if (!packageName.isEmpty()) {
      out.append("package ").append(packageName).append(";\n\n");
    }
    Map<String, ClassName> sorted = new TreeMap<>();
    for (ClassName imported : imports.values()) {
      sorted.put(imported.canonicalName(), imported);
    }
    int importCount = 0;
    for (ClassName imported : sorted.values()) {
      if (imported.packageName().equals("java.lang")) {
        continue;
      }
      out.append("import ").append(imported.canonicalName()).append(";\n");
      importCount++;
    }
    if (importCount > 0) {
      out.append('\n');
    }
    LineWrapper wrapper = new LineWrapper(out);
    StringBuilder typeText = new StringBuilder();
    for (Object part : parts) {
      if (part instanceof String s) {
        wrapper.append(s);
      } else if (part instanceof TypeUse use) {
        typeText.setLength(0);
        names.write(use, typeText);
        wrapper.append(typeText.toString());
      } else {
        Wrap wrap = (Wrap) part;
        if (wrap.space()) {
          wrapper.wrappingSpace(wrap.indentLevel());
        } else {
          wrapper.zeroWidthSpace(wrap.indentLevel());
        }
      }
    }
    wrapper.close();
    return out.toString();
  }

  /** How type names are written in one file: JavaPoet's {@code CodeWriter.lookupName} and its imports. */
  private static final class Names {
    private final String packageName;
    private final Map<String, ClassName> importable = new LinkedHashMap<>();
    private final Set<String> referenced = new HashSet<>();
    /** Empty while the imports are collected; then the imports. */
    private Map<String, ClassName> imported = Map.of();

    Names(String packageName) {
      this.packageName = packageName;
    }

    Map<String, ClassName> imports() {
      Map<String, ClassName> result = new LinkedHashMap<>(importable);
      result.keySet().removeAll(referenced);
      return result;
    }

    /** Writes the type to {@code out}; with a null {@code out}, only notes the imports it would need. */
    void write(TypeUse use, StringBuilder out) {
      write(use.type(), use, use.varargs(), out);
    }

    private void write(TypeName type, TypeUse use, boolean varargs, StringBuilder out) {
      if (type instanceof ClassName name) {
        String written = lookup(name, use);
        if (out != null) {
          out.append(written);
        }
      } else if (type instanceof ParameterizedTypeName parameterized) {
        if (parameterized.enclosingType() != null) {
          write(parameterized.enclosingType(), use, false, out);
          if (out != null) {
            out.append('.').append(parameterized.rawType().simpleName());
          }
        } else {
          write(parameterized.rawType(), use, false, out);
        }
        List<TypeName> arguments = parameterized.typeArguments();
        if (!arguments.isEmpty()) {
          if (out != null) {
            out.append('<');
          }
          for (int i = 0; i < arguments.size(); i++) {
            if (i > 0 && out != null) {
              out.append(", ");
            }
            write(arguments.get(i), use, false, out);
          }
          if (out != null) {
            out.append('>');
          }
        }
      } else if (type instanceof ArrayTypeName array) {
        TypeName leaf = array.componentType();
        int dimensions = 1;
        while (leaf instanceof ArrayTypeName nested) {
          leaf = nested.componentType();
          dimensions++;
        }
        write(leaf, use, false, out);
        if (out != null) {
          for (int i = 1; i < dimensions; i++) {
            out.append("[]");
          }
          out.append(varargs ? "..." : "[]");
        }
      } else if (type instanceof WildcardTypeName wildcard) {
        if (wildcard.lowerBounds().size() == 1) {
          if (out != null) {
            out.append("? super ");
          }
          write(wildcard.lowerBounds().get(0), use, false, out);
        } else if (isObject(wildcard.upperBounds().get(0))) {
          if (out != null) {
            out.append('?');
          }
        } else {
          if (out != null) {
            out.append("? extends ");
          }
          write(wildcard.upperBounds().get(0), use, false, out);
        }
      } else if (type instanceof TypeVariableName variable) {
        if (out != null) {
          out.append(variable.name());
        }
      } else if (out != null) {
        out.append(keyword(type));
      }
    }

    /** The shortest name that means {@code name} where it is used; notes an import it could have. */
    private String lookup(ClassName name, TypeUse use) {
      ClassName topLevel = name.topLevelClassName();
      String topLevelSimpleName = topLevel.simpleName();
      if (use.typeVariables().contains(topLevelSimpleName)) {
        return name.canonicalName();
      }
      boolean nameResolved = false;
      for (ClassName c = name; c != null; c = c.enclosingClassName()) {
        String resolved = resolve(c.simpleName(), use.frames());
        nameResolved = resolved != null;
        if (resolved != null && resolved.equals(c.canonicalName())) {
          List<String> simpleNames = name.simpleNames();
          return dotted(simpleNames, c.simpleNames().size() - 1);
        }
      }
      if (nameResolved) {
        return name.canonicalName();
      }
      if (packageName.equals(name.packageName())) {
        referenced.add(topLevelSimpleName);
        return dotted(name.simpleNames(), 0);
      }
      if (!name.packageName().isEmpty()) {
        importable.putIfAbsent(topLevelSimpleName, topLevel);
      }
      return name.canonicalName();
    }

    /** {@code names} from {@code from} on, joined by dots (a loop: String.join's joiner is slow in a cold processor). */
    private static String dotted(List<String> names, int from) {
      if (from == names.size() - 1) {
        return names.get(from);
      }
      StringBuilder dotted = new StringBuilder(names.get(from));
      for (int i = from + 1; i < names.size(); i++) {
        dotted.append('.').append(names.get(i));
      }
      return dotted.toString();
    }

    /** The canonical name a simple name means here: a member type, the top-level type, an import; else null. */
    private String resolve(String simpleName, List<TypeFrame> frames) {
      for (int i = frames.size() - 1; i >= 0; i--) {
        if (frames.get(i).memberTypes().contains(simpleName)) {
          StringBuilder canonical = new StringBuilder(packageName);
          for (int j = 0; j <= i; j++) {
            if (canonical.length() > 0) {
              canonical.append('.');
            }
            canonical.append(frames.get(j).name());
          }
          return canonical.append('.').append(simpleName).toString();
        }
      }
      if (!frames.isEmpty() && frames.get(0).name().equals(simpleName)) {
        return packageName.isEmpty() ? simpleName : packageName + "." + simpleName;
      }
      ClassName imported = this.imported.get(simpleName);
      return imported == null ? null : imported.canonicalName();
    }
  }

  /** JavaPoet's {@code LineWrapper}: decides at each wrapping point whether what follows fits in the line. */
  private static final class LineWrapper {
    private final StringBuilder out;
    private final StringBuilder buffer = new StringBuilder();
    private int column;
    private int indentLevel = -1;
    /** What the pending wrapping point becomes if the text after it fits: a space, nothing; null if none. */
    private Boolean pendingSpace;

    LineWrapper(StringBuilder out) {
      this.out = out;
    }

    void append(String s) {
      if (pendingSpace != null) {
        int nextNewline = s.indexOf('\n');
        if (nextNewline == -1 && column + s.length() <= COLUMN_LIMIT) {
          buffer.append(s);
          column += s.length();
          return;
        }
        boolean wrap = nextNewline == -1 || column + nextNewline > COLUMN_LIMIT;
        flush(wrap);
      }
      out.append(s);
      int lastNewline = s.lastIndexOf('\n');
      column = lastNewline != -1 ? s.length() - lastNewline - 1 : column + s.length();
    }

    void wrappingSpace(int indentLevel) {
      if (pendingSpace != null) {
        flush(false);
      }
      column++; // the space is counted now, written (or replaced by a new line) when the text after it is known
      pendingSpace = Boolean.TRUE;
      this.indentLevel = indentLevel;
    }

    void zeroWidthSpace(int indentLevel) {
      if (column == 0) {
        return;
      }
      if (pendingSpace != null) {
        flush(false);
      }
      pendingSpace = Boolean.FALSE;
      this.indentLevel = indentLevel;
    }

    void close() {
      if (pendingSpace != null) {
        flush(false);
      }
    }

    private void flush(boolean wrap) {
      if (wrap) {
        out.append('\n');
        for (int i = 0; i < indentLevel; i++) {
          out.append(INDENT);
        }
        column = indentLevel * INDENT.length() + buffer.length();
      } else if (pendingSpace) {
        out.append(' ');
      }
      out.append(buffer);
      buffer.setLength(0);
      indentLevel = -1;
      pendingSpace = null;
    }
  }

  /**
   * The keyword of a primitive type or void. By identity: {@code TypeName.get} returns these constants, and
   * {@code TypeName.equals} and {@code toString} run JavaPoet's format engine, which this class exists to avoid.
   */
  static String keyword(TypeName type) {
    if (type == TypeName.VOID) {
      return "void";
    } else if (type == TypeName.BOOLEAN) {
      return "boolean";
    } else if (type == TypeName.BYTE) {
      return "byte";
    } else if (type == TypeName.SHORT) {
      return "short";
    } else if (type == TypeName.INT) {
      return "int";
    } else if (type == TypeName.LONG) {
      return "long";
    } else if (type == TypeName.CHAR) {
      return "char";
    } else if (type == TypeName.FLOAT) {
      return "float";
    } else if (type == TypeName.DOUBLE) {
      return "double";
    }
    throw new IllegalArgumentException("Not a primitive type name: " + type.getClass().getSimpleName());
  }

  /** {@code java.lang.Object}, compared by name (see {@link #keyword}). */
  static boolean isObject(TypeName type) {
    return type instanceof ClassName name && name.canonicalName().equals("java.lang.Object");
  }

  /** JavaPoet's {@code $S}: the string between quotes, escaped; a multi-line string as a concatenation. */
  static String stringLiteral(String value) {
    StringBuilder result = new StringBuilder(value.length() + 2);
    result.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '\'' -> result.append('\'');
        case '"' -> result.append("\\\"");
        case '\b' -> result.append("\\b");
        case '\t' -> result.append("\\t");
        case '\n' -> result.append("\\n");
        case '\f' -> result.append("\\f");
        case '\r' -> result.append("\\r");
        case '\\' -> result.append("\\\\");
        default -> {
          if (Character.isISOControl(c)) {
            result.append(String.format("\\u%04x", (int) c));
          } else {
            result.append(c);
          }
        }
      }
      if (c == '\n' && i + 1 < value.length()) {
        result.append("\"\n").append(INDENT).append(INDENT).append("+ \"");
      }
    }
    return result.append('"').toString();
  }
}
