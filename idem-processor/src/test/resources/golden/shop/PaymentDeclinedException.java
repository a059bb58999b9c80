package shop;

public class PaymentDeclinedException extends Exception {

  private static final long serialVersionUID = 1L;

  public PaymentDeclinedException(String message) {
    super(message);
  }
}
