package docs.prelude;

/** The states of a {@link PurchaseOrder}, stored by name ({@code @Enumerated(STRING)}). */
public enum OrderStatus {
  CREATED,
  PROCESSING,
  PAID,
  SHIPPED,
  FINISHED
}
