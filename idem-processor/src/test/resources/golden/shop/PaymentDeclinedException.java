package shop;

public class PaymentDeclinedException extends Exception {

  private static final long serialVersionUID = 1L;

  private final String declineCode;

  public PaymentDeclinedException(String message) {
    this(message, null);
  }

  public PaymentDeclinedException(String message, String declineCode) {
    super(message);
    this.declineCode = declineCode;
  }

  public String declineCode() {
    return declineCode;
  }
}
