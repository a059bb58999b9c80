package shop;

/** A message with a header, as delivered by a broker. */
public record OrderPaid(Header header, String orderId, long amountCents) {

  public record Header(String messageId, String source) {}
}
