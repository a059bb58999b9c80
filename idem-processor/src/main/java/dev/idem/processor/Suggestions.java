package dev.idem.processor;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/** "Did you mean PAID?": the closest of some names to a misspelt one, by edit distance. */
final class Suggestions {

  private Suggestions() {}

  /**
   * The candidate closest to {@code name}: a case-insensitive match first, else the one with the smallest
   * Levenshtein distance if that is at most a third of the name's length (at least 2), else none. Ties go to the
   * candidate listed first, so the suggestion is the same on every build.
   */
  static Optional<String> closest(String name, Collection<String> candidates) {
    for (String candidate : candidates) {
      if (candidate.equalsIgnoreCase(name)) {
        return Optional.of(candidate);
      }
    }
    String best = null;
    int bestDistance = Math.max(2, name.length() / 3) + 1;
    for (String candidate : candidates) {
      int distance = distance(name.toUpperCase(Locale.ROOT), candidate.toUpperCase(Locale.ROOT));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    return Optional.ofNullable(best);
  }

  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
