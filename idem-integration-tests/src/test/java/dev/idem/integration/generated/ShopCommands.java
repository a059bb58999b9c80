package dev.idem.integration.generated;

import dev.idem.IdempotencyKey;
import dev.idem.IdempotentCommand;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/** A service exercising every shape of command the processor supports, run end to end on every database. */
public interface ShopCommands {

  enum Channel { WEB, MOBILE }

  record Receipt(String paymentId, long amountCents, List<String> tags) {}

  record Customer(long id, String name) {}

  record Reservation(Order order, int quantity) {}

  record Order(String id, Customer customer) {}

  /** A sealed result: each call replays as exactly the record it was, with no Jackson annotations on these types. */
  sealed interface Settlement permits Settlement.Accepted, Settlement.Declined {
    record Accepted(String reference, BigDecimal amount) implements Settlement {}

    record Declined(String reason, int code) implements Settlement {}
  }

  /**
   * An immutable class as many codebases write them: private final fields, getters, no no-argument constructor. It
   * replays through its constructor, whose parameter names the processor hands to the runtime.
   */
  final class Quote {
    private final BigDecimal total;
    private final Set<String> items;

    public Quote(BigDecimal total, Set<String> items) {
      this.total = total;
      this.items = Set.copyOf(items);
    }

    public BigDecimal getTotal() {
      return total;
    }

    public Set<String> getItems() {
      return items;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Quote quote && total.equals(quote.total) && items.equals(quote.items);
    }

    @Override
    public int hashCode() {
      return Objects.hash(total, items);
    }

    @Override
    public String toString() {
      return "Quote[" + total + ", " + items + "]";
    }
  }

  /** A sealed abstract class whose subclasses are constructor-built, with record-style accessors on private fields. */
  abstract sealed class Parcel permits Parcel.Letter, Parcel.Box {
    private final String label;

    Parcel(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }

    /** Up to 500 g. */
    public static final class Letter extends Parcel {
      private final int weightGrams;

      public Letter(String label, int weightGrams) {
        super(label);
        this.weightGrams = weightGrams;
      }

      public int weightGrams() {
        return weightGrams;
      }

      @Override
      public boolean equals(Object other) {
        return other instanceof Letter letter && label().equals(letter.label()) && weightGrams == letter.weightGrams;
      }

      @Override
      public int hashCode() {
        return Objects.hash(label(), weightGrams);
      }
    }

    /** Anything heavier. */
    public static final class Box extends Parcel {
      private final int weightGrams;
      private final List<String> contents;

      public Box(String label, int weightGrams, List<String> contents) {
        super(label);
        this.weightGrams = weightGrams;
        this.contents = List.copyOf(contents);
      }

      public int weightGrams() {
        return weightGrams;
      }

      public List<String> contents() {
        return contents;
      }

      @Override
      public boolean equals(Object other) {
        return other instanceof Box box && label().equals(box.label()) && weightGrams == box.weightGrams
            && contents.equals(box.contents);
      }

      @Override
      public int hashCode() {
        return Objects.hash(label(), weightGrams, contents);
      }
    }
  }

  /** A checked business exception: it must reach the caller unchanged and roll everything back. */
  final class OutOfStockException extends Exception {
    private static final long serialVersionUID = 1L;

    public OutOfStockException(String message) {
      super(message);
    }
  }

  @IdempotentCommand
  Receipt pay(@IdempotencyKey String requestId, long amountCents, List<String> tags);

  @IdempotentCommand(scope = "shop.refunds", retention = "PT1H")
  List<Receipt> refunds(@IdempotencyKey UUID refundId, @IdempotencyKey Channel channel);

  @IdempotentCommand
  Optional<Customer> findCustomer(@IdempotencyKey long customerId);

  @IdempotentCommand
  Map<String, Integer> stock(@IdempotencyKey("customer.name") Order order);

  @IdempotentCommand
  int reserve(@IdempotencyKey("order.id") Reservation reservation) throws OutOfStockException;

  @IdempotentCommand
  void ship(@IdempotencyKey String shipmentId, @IdempotencyKey Channel channel);

  @IdempotentCommand
  String nothing(@IdempotencyKey String key);

  @IdempotentCommand
  Settlement settle(@IdempotencyKey String settlementId, BigDecimal amount, boolean accept);

  @IdempotentCommand
  Quote quote(@IdempotencyKey String quoteId, Set<String> items, BigDecimal unitPrice);

  @IdempotentCommand
  Parcel pack(@IdempotencyKey String parcelId, int weightGrams, List<String> contents);

  /** Not annotated: forwarded. */
  int executions();
}
