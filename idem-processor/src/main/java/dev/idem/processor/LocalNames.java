package dev.idem.processor;

import java.util.Set;

/** Names of the locals generated code declares, chosen so that they never shadow a parameter or a constant. */
final class LocalNames {

  private LocalNames() {}

  /** {@code name}, or {@code name2}, {@code name3}... if it is taken; the result is taken from then on. */
  static String unique(String name, Set<String> taken) {
    String unique = name;
    for (int i = 2; !taken.add(unique); i++) {
      unique = name + i;
    }
    return unique;
  }

  static String capitalize(String name) {
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }
}
