package shop;

/** A JavaBean-style class: the key is read through getRefundId(). */
public class LegacyRefund {

  private final String refundId;

  public LegacyRefund(String refundId) {
    this.refundId = refundId;
  }

  public String getRefundId() {
    return refundId;
  }
}
