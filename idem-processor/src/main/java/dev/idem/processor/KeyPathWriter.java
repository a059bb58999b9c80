package dev.idem.processor;

import java.util.List;
import java.util.Set;

/**
 * The one emitter of key-part expressions, for commands and batch handlers alike. A path is navigated null-safely,
 * so that a missing message id surfaces as the runtime's "key part is null" error instead of a
 * NullPointerException; nested paths go through locals so that no accessor is called twice.
 */
final class KeyPathWriter {

  private KeyPathWriter() {}

  /**
   * The expression for {@code accessors} read from {@code root}: {@code root} itself for an empty path, else
   * {@code root == null ? null : root.a()} (through locals for {@code a.b}, added to {@code locals}).
   *
   * @param names the names already taken in the scope of the expression; the locals' names are added to it
   * @param locals receives one statement per intermediate step of a nested path, to be placed before the expression
   */
  static String value(String root, List<String> accessors, Set<String> names, StringBuilder locals) {
    String current = root;
    for (int i = 0; i < accessors.size() - 1; i++) {
      String next = LocalNames.unique(current + LocalNames.capitalize(accessors.get(i)), names);
      // Not addStatement: a message's locals sit in a lambda inside the runtime call, itself a statement.
      locals.append("var ").append(next).append(" = ").append(current).append(" == null ? null : ").append(current)
          .append('.').append(accessors.get(i)).append("();\n");
      current = next;
    }
    if (accessors.isEmpty()) {
      return current;
    }
    return current + " == null ? null : " + current + "." + accessors.get(accessors.size() - 1) + "()";
  }
}
