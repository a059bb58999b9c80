package dev.idem.processor;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The body of a type declaration being written into a {@link JavaText}: its members are written each into a text
 * of its own, in any order, and {@link #close} puts them in the order JavaPoet put them (static fields, fields,
 * constructors, methods, member types; one blank line between two), then the closing brace.
 */
final class TypeText {

  private final JavaText out;
  private final JavaText body;
  private final List<JavaText> staticFields = new ArrayList<>();
  private final List<JavaText> fields = new ArrayList<>();
  private final List<JavaText> constructors = new ArrayList<>();
  private final List<JavaText> methods = new ArrayList<>();
  private final List<JavaText> types = new ArrayList<>();

  private TypeText(JavaText out) {
    this.out = out;
    this.body = JavaText.at(out);
  }

  /**
   * Begins a type's header ({@code /** ... * /}, annotations, {@code public final class X implements Y}), written
   * next by the caller: inside it, the type's own name is known and its member types are not yet.
   */
  static void beginHeader(JavaText out, String name) {
    out.pushType(new JavaText.TypeFrame(name, Set.of()));
  }

  /** Ends the header with {@code " {"} and opens the body, in which {@code memberTypes} are known by name. */
  static TypeText open(JavaText out, String name, Set<String> memberTypes) {
    out.popType();
    out.text(" {\n");
    out.pushType(new JavaText.TypeFrame(name, memberTypes));
    out.indent();
    return new TypeText(out);
  }

  JavaText staticField() {
    return member(staticFields);
  }

  JavaText field() {
    return member(fields);
  }

  JavaText constructor() {
    return member(constructors);
  }

  JavaText method() {
    return member(methods);
  }

  JavaText type() {
    return member(types);
  }

  private JavaText member(List<JavaText> kind) {
    JavaText member = JavaText.at(body);
    kind.add(member);
    return member;
  }

  /** Writes the members in their order and closes the type. */
  void close() {
    boolean first = true;
    for (List<JavaText> kind : List.of(staticFields, fields, constructors, methods, types)) {
      for (JavaText member : kind) {
        if (!first) {
          out.text("\n");
        }
        out.append(member);
        first = false;
      }
    }
    out.unindent();
    out.popType();
    out.text("}\n");
  }
}
