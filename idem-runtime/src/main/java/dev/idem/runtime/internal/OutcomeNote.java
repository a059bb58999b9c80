package dev.idem.runtime.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What an {@code OUTCOME_UNKNOWN} record holds in its {@code result} column: idem's own note, not a result, as JSON
 * {@code {"since": <epoch millis>, "problem": "<what failed>"}}, for the retries' exception and for operators.
 *
 * @param since when the outcome was found not recordable, epoch millis (database time)
 * @param problem what failed
 */
record OutcomeNote(long since, String problem) {

  private static final ObjectMapper JSON = new ObjectMapper();
  /** The longest problem text stored: the note must stay small whatever the driver's message. */
  private static final int MAX_PROBLEM_LENGTH = 2_000;

  static String write(long since, String problem) {
    ObjectNode note = JSON.createObjectNode();
    note.put("since", since);
    note.put("problem", problem.length() > MAX_PROBLEM_LENGTH ? problem.substring(0, MAX_PROBLEM_LENGTH) + "..."
        : problem);
    return note.toString();
  }

  /** The note of a record; a missing or unreadable one (tampered) still yields a note, never an exception. */
  static OutcomeNote parse(String json, long fallbackSince) {
    if (json != null) {
      try {
        JsonNode note = JSON.readTree(json);
        if (note != null && note.path("since").isIntegralNumber() && note.path("problem").isTextual()) {
          return new OutcomeNote(note.get("since").asLong(), note.get("problem").asText());
        }
      } catch (JsonProcessingException e) {
        // falls through: unreadable
      }
    }
    return new OutcomeNote(fallbackSince, "what failed is not known (the record's note is missing or unreadable)");
  }
}
