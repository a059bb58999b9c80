package com.example.fidelity;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Collection;
import java.util.Set;
import java.util.SortedSet;

/** What the fidelity diagnostics IDEM-051 to IDEM-054 suggest instead compiles cleanly. */
public interface ExactReplays {

  /** getMessage() decorates, but message() returns the constructor's argument: idem captures that one. */
  class CardDeclinedException extends Exception {
    private static final long serialVersionUID = 1L;
    private final String message;
    private final String declineCode;

    public CardDeclinedException(String message, String declineCode) {
      super(message);
      this.message = message;
      this.declineCode = declineCode;
    }

    public String message() {
      return message;
    }

    public String declineCode() {
      return declineCode;
    }

    @Override
    public String getMessage() {
      return "[" + declineCode + "] " + super.getMessage();
    }
  }

  /** @JsonInclude is left to the runtime, which writes every property whatever it says. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Profile(String name, String nickname) {}

  /** A JavaBean read back through setters: an ignored property is simply not part of the value. */
  class Preferences {
    private String theme;
    private String cachedHtml;

    public String getTheme() {
      return theme;
    }

    public void setTheme(String theme) {
      this.theme = theme;
    }

    @JsonIgnore
    public String getCachedHtml() {
      return cachedHtml;
    }

    public void setCachedHtml(String cachedHtml) {
      this.cachedHtml = cachedHtml;
    }
  }

  /** @JsonIgnore(false) ignores nothing. */
  record Account(String id, @JsonIgnore(false) String owner) {}

  @IdempotentCommand(scope = "exact.charge", replayOn = CardDeclinedException.class)
  String charge(@IdempotencyKey String paymentId, long cents) throws CardDeclinedException;

  @IdempotentCommand(scope = "exact.tags")
  Set<String> tags(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "exact.ordered")
  LinkedHashSet<String> ordered(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "exact.ranking")
  List<String> ranking(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "exact.scores")
  LinkedHashMap<String, Integer> scores(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "exact.profile")
  Profile profile(@IdempotencyKey String requestId);

  @IdempotentCommand(scope = "exact.preferences")
  Preferences preferences(@IdempotencyKey String requestId);

  /** Payloads are only written (fingerprinted), so the declared collection type does not matter there. */
  @IdempotentCommand(scope = "exact.fingerprint")
  String fingerprint(@IdempotencyKey String requestId, Collection<String> items, SortedSet<String> sorted);

  @IdempotentCommand(scope = "exact.account")
  Account account(@IdempotencyKey String requestId);
}
