package docs.prelude;

/** A business failure a CLAIM command stores and replays ({@code replayOn}). */
public class CardDeclinedException extends Exception {
  private final String declineCode;

  public CardDeclinedException(String message, String declineCode) {
    super(message);
    this.declineCode = declineCode;
  }

  public String declineCode() {
    return declineCode;
  }
}
