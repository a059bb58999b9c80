package shop;

/** Unchecked, with a primitive field: replayed without being declared. */
public class OutOfStockException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String sku;
  private final int available;

  public OutOfStockException(String sku, int available) {
    super("Only " + available + " of " + sku + " in stock");
    this.sku = sku;
    this.available = available;
  }

  public String getSku() {
    return sku;
  }

  public int available() {
    return available;
  }
}
