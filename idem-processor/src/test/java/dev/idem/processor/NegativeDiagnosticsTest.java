package dev.idem.processor;

import static com.google.common.truth.Truth.assertThat;
import static com.google.common.truth.Truth.assertWithMessage;
import static com.google.testing.compile.CompilationSubject.assertThat;
import static dev.idem.processor.Compilations.assertPointsAt;
import static dev.idem.processor.Compilations.run;
import static dev.idem.processor.Compilations.onlyError;
import static dev.idem.processor.Compilations.resource;

import com.google.testing.compile.Compilation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaFileObject;
import javax.tools.StandardLocation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One test per diagnostic: each bad source is a real file under {@code src/test/resources/negative}, holding exactly
 * one problem. Every case asserts the tag, the part of the sentence that says how to fix it, the file, the line,
 * the exact token javac's caret points at, that the error is reported once and that nothing is generated.
 */
class NegativeDiagnosticsTest {

  /** The messages the cases below have covered; {@link #everyMessageIsCovered()} checks none is forgotten. */
  private static final Set<Message> COVERED = EnumSet.noneOf(Message.class);

  /**
   * @param resource the bad source
   * @param message the expected diagnostic
   * @param line a fragment that identifies the line of the error in the source
   * @param token the text javac's caret must point at
   * @param fragments parts of the message: what is wrong (names, types) and how to fix it
   */
  record Case(String resource, Message message, String line, String token, List<String> fragments) {

    @Override
    public String toString() {
      return message.tag() + " " + resource;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("negative/CommandOnClassMethod.java", Message.NOT_AN_INTERFACE_METHOD,
            "@IdempotentCommand", "@IdempotentCommand",
            List.of("@IdempotentCommand must be on an abstract method of an interface",
                "CommandOnClassMethod.placeOrder() is a method of class CommandOnClassMethod",
                "Put it on a method of the service interface")),
        new Case("negative/CommandOnStaticMethod.java", Message.NOT_AN_INTERFACE_METHOD,
            "@IdempotentCommand(scope = \"orders.normalize\")", "@IdempotentCommand",
            List.of("CommandOnStaticMethod.normalize() is a static method",
                "Put it on a method of the service interface")),
        new Case("negative/CommandOnPrivateMethod.java", Message.NOT_AN_INTERFACE_METHOD,
            "@IdempotentCommand(scope = \"orders.normalize\")", "@IdempotentCommand",
            List.of("CommandOnPrivateMethod.normalize() is a private method")),
        new Case("negative/GenericMethod.java", Message.GENERIC_METHOD,
            "<R> R charge(", "charge",
            List.of("Method charge declares type parameters", "Replace the type parameters with concrete types")),
        new Case("negative/GenericInterface.java", Message.GENERIC_INTERFACE,
            "public interface GenericInterface<C>", "interface", // javac's caret for a type is its keyword
            List.of("Interface com.example.shop.GenericInterface declares type parameters",
                "Declare a non-generic sub-interface that fixes them",
                "extends GenericInterface<Order>")),
        new Case("negative/NoKey.java", Message.NO_KEY,
            "@IdempotentCommand(scope = \"orders.place\")", "@IdempotentCommand",
            List.of("method placeOrder has no @IdempotencyKey parameter",
                "Mark the parameter that identifies one business action")),
        new Case("negative/KeyPathSyntax.java", Message.KEY_PATH_SYNTAX,
            "header..messageId", "\"header..messageId\"",
            List.of("@IdempotencyKey(\"header..messageId\") is not an accessor path",
                "Write accessor names separated by dots")),
        new Case("negative/KeyPathUnresolved.java", Message.KEY_PATH_UNRESOLVED,
            "header.messageID", "\"header.messageID\"",
            List.of("@IdempotencyKey(\"header.messageID\") cannot be resolved",
                "com.example.shop.MessageHeader has no accessor messageID() or getMessageID()",
                "Name a public no-argument accessor of com.example.shop.MessageHeader")),
        new Case("negative/KeyTypeUnsupported.java", Message.KEY_TYPE_UNSUPPORTED,
            "@IdempotencyKey Instant businessDay", "@IdempotencyKey",
            List.of("Idempotency key part businessDay has type java.time.Instant",
                "point the key at such a value")),
        new Case("negative/KeyPathTypeUnsupported.java", Message.KEY_TYPE_UNSUPPORTED,
            "@IdempotencyKey(\"amount\")", "\"amount\"",
            List.of("Idempotency key part request.amount has type java.math.BigDecimal",
                "Key parts may be String, UUID, an integral number")),
        new Case("negative/KeyTimeOnNumericKey.java", Message.KEY_TIME_TYPE,
            "keyTime = KeyTime.UUID_V7", ".UUID_V7", // javac's caret for an enum constant: its dot
            List.of("keyTime = UUID_V7 reads the time from the key's first part, but orderNumber has type long",
                "Make the first @IdempotencyKey the id that carries the time: a String or a java.util.UUID")),
        new Case("negative/RetentionInvalid.java", Message.DURATION_INVALID,
            "retention = \"P1M\"", "\"P1M\"",
            List.of("retention = \"P1M\" is not a positive ISO-8601 duration",
                "months and years are not durations: use days")),
        new Case("negative/RetentionTooShort.java", Message.DURATION_INVALID,
            "retention = \"PT0.0001S\"", "\"PT0.0001S\"",
            List.of("retention = \"PT0.0001S\" is not a positive ISO-8601 duration of at least one millisecond")),
        new Case("negative/LeaseInvalid.java", Message.DURATION_INVALID,
            "lease = \"-PT30S\"", "\"-PT30S\"",
            List.of("lease = \"-PT30S\" is not a positive ISO-8601 duration", "Write a duration such as \"PT30S\"")),
        new Case("negative/WaitTimeoutInvalid.java", Message.DURATION_INVALID,
            "waitTimeout = \"10 seconds\"", "\"10 seconds\"",
            List.of("waitTimeout = \"10 seconds\" is not a positive ISO-8601 duration")),
        new Case("negative/ScopeInvalid.java", Message.SCOPE_INVALID,
            "scope = \"payments/charge\"", "\"payments/charge\"",
            List.of("scope = \"payments/charge\" must be 1 to 128 characters of letters, digits and ._:-",
                "Choose a name such as \"payments.charge\"")),
        new Case("negative/ScopeDefaultTooLong.java", Message.SCOPE_DEFAULT_UNUSABLE,
            "    @IdempotentCommand", "@IdempotentCommand",
            List.of("The default scope \"com.example.shop.ScopeDefaultTooLong"
                    + ".InternationalWireTransferSettlementCommandsForCorrespondentBanks"
                    + ".settleOutstandingWireTransfersWithCorrespondentBankAtEndOfBusinessDay\"",
                "(qualified interface name and method, 171 characters)",
                "Set scope = \"...\" on the method")),
        new Case("negative/hygiene/PrivateService.java", Message.SERVICE_NOT_ACCESSIBLE,
            "private interface Payments", "interface",
            List.of("Interface com.example.billing.PrivateService.Payments cannot be implemented by the generated"
                + " top-level class com.example.billing.PrivateService_Payments_Idempotent, because"
                + " com.example.billing.PrivateService.Payments is private", "Make the interface")),
        new Case("negative/hygiene/PrivateResultType.java", Message.SIGNATURE_TYPE_NOT_ACCESSIBLE,
            "Receipt pay(", "pay",
            List.of("Method pay mentions com.example.billing.PrivateResultType.Receipt, which the generated class"
                + " com.example.billing.PrivateResultType_Payments_Idempotent cannot name, because"
                + " com.example.billing.PrivateResultType.Receipt is private",
                "Make that type public or package-private")),
        new Case("negative/fidelity/ResultWithoutCreator.java", Message.RESULT_NOT_REPLAYABLE,
            "Money charge(", "charge",
            List.of("charge returns com.example.fidelity.ResultWithoutCreator.Money, which would be stored but not"
                + " replayed exactly: result is com.example.fidelity.ResultWithoutCreator.Money, which has no"
                + " no-argument constructor and no constructor whose parameters are named exactly like its"
                + " properties [amountCents, currency]", "Fix: add a constructor taking amountCents, currency,"
                + " or make it a record.")),
        new Case("negative/fidelity/ResultAbstract.java", Message.RESULT_NOT_REPLAYABLE,
            "Outcome settle(", "settle",
            List.of("result is the abstract class com.example.fidelity.ResultAbstract.Outcome, so a retry cannot"
                + " know which class to create", "Fix: make it sealed")),
        new Case("negative/fidelity/ResultSerializable.java", Message.RESULT_NOT_REPLAYABLE,
            "Serializable export(", "export",
            List.of("result is java.io.Serializable, which is not a data type the codec reads back",
                "Fix: declare a record, an enum")),
        new Case("negative/fidelity/ResultComparable.java", Message.RESULT_NOT_REPLAYABLE,
            "Comparable<String> rank(", "rank",
            List.of("rank returns java.lang.Comparable<java.lang.String>", "result is java.lang.Comparable")),
        new Case("negative/fidelity/ResultWildcardList.java", Message.RESULT_NOT_REPLAYABLE,
            "Batch batch(", "batch",
            List.of("result.items[] is a wildcard (?)", "Fix: declare the element type itself")),
        new Case("negative/fidelity/ResultHiddenField.java", Message.RESULT_NOT_REPLAYABLE,
            "Payment pay(", "pay",
            List.of("result.amountCents is the field Payment.amountCents, which the codec cannot see: it is not"
                + " public and has no public getter getAmountCents() or accessor amountCents(), so it would be"
                + " lost on replay", "Fix: add a public accessor amountCents()")),
        new Case("negative/fidelity/ResultComputedGetter.java", Message.RESULT_NOT_REPLAYABLE,
            "Invoice invoice(", "invoice",
            List.of("result.total is written from a getter of Invoice, but there is no field total or setter"
                + " setTotal(...) to read it back into")),
        new Case("negative/fidelity/ReplayOnObjectArgument.java", Message.REPLAY_ON_ARGUMENT_NOT_REPLAYABLE,
            "replayOn = Declined.class", ".class)",
            List.of("replayOn lists com.example.fidelity.ReplayOnObjectArgument.Declined, whose stored constructor"
                + " argument would not be recreated exactly: Declined.detail() is declared Object")),
        new Case("negative/fidelity/ResultCollection.java", Message.RESULT_COLLECTION_KIND_LOST,
            "Collection<String> tag(", "tag",
            List.of("tag returns java.util.Collection<java.lang.String>, which would be stored but not replayed"
                + " exactly: result is declared java.util.Collection<java.lang.String>",
                "a retry gets an ArrayList whatever the method returned (a Set comes back as a List)",
                "Declare List, Set or another concrete collection interface")),
        new Case("negative/fidelity/ResultIterableComponent.java", Message.RESULT_COLLECTION_KIND_LOST,
            "Catalog catalog(", "catalog",
            List.of("result.labels[].aliases is declared java.lang.Iterable<java.lang.String>",
                "Declare List, Set or another concrete collection interface")),
        new Case("negative/fidelity/ResultSortedSet.java", Message.RESULT_COMPARATOR_LOST,
            "SortedSet<String> topDown(", "topDown",
            List.of("result is declared java.util.SortedSet<java.lang.String>, a sorted set: its comparator cannot"
                + " be stored, so a retry gets it in natural order",
                "Return a List, LinkedHashSet or LinkedHashMap, whose order replays exactly.")),
        new Case("negative/fidelity/ResultSortedMapComponent.java", Message.RESULT_COMPARATOR_LOST,
            "Scores scores(", "scores",
            List.of("result.byPlayer is declared java.util.concurrent.ConcurrentSkipListMap<java.lang.String,"
                + "java.lang.Integer>, a sorted map", "Return a List, LinkedHashSet or LinkedHashMap")),
        new Case("negative/fidelity/ReplayOnMessageOverridden.java", Message.REPLAY_ON_MESSAGE_OVERRIDDEN,
            "replayOn = CardDeclinedException.class", ".class)",
            List.of("replayOn lists com.example.fidelity.ReplayOnMessageOverridden.CardDeclinedException, whose"
                + " getMessage() is overridden by com.example.fidelity.ReplayOnMessageOverridden.CardDeclinedException,"
                + " but idem recreates it by passing the value of getMessage() to its constructor parameter message",
                "Keep getMessage() un-overridden", "or add a public accessor message() that returns the"
                + " constructor's argument as given")),
        new Case("negative/fidelity/ReplayOnMessageOverriddenInSuperclass.java",
            Message.REPLAY_ON_MESSAGE_OVERRIDDEN, "replayOn = CardDeclinedException.class", ".class)",
            List.of("whose getMessage() is overridden by"
                + " com.example.fidelity.ReplayOnMessageOverriddenInSuperclass.PaymentException")),
        new Case("negative/fidelity/ResultJsonIgnoreComponent.java", Message.RESULT_PROPERTY_IGNORED,
            "User register(", "register",
            List.of("register returns com.example.fidelity.ResultJsonIgnoreComponent.User, which would be stored but"
                + " could not be read back: result.passwordHash is dropped by @JsonIgnore on User.passwordHash, but"
                + " the canonical constructor of record User needs it", "Remove @JsonIgnore",
                "or leave the property out of the type")),
        new Case("negative/fidelity/ResultJsonIgnoreGetter.java", Message.RESULT_PROPERTY_IGNORED,
            "Voucher issue(", "issue",
            List.of("result.cents is dropped by @JsonIgnore on Voucher.cents, but the constructor"
                + " Voucher(code, cents) needs it", "Remove @JsonIgnore")),
        new Case("negative/fidelity/ResultJsonIgnoreProperties.java", Message.RESULT_PROPERTY_IGNORED,
            "Ticket open(", "open",
            List.of("result.internalNote is dropped by @JsonIgnoreProperties on Ticket, but the constructor"
                + " Ticket(id, internalNote) needs it", "Remove \"internalNote\" from @JsonIgnoreProperties")),
        new Case("negative/fidelity/PayloadHiddenField.java", Message.PAYLOAD_NOT_FINGERPRINTED,
            "String charge(@IdempotencyKey String requestId, Charge charge)", "charge",
            List.of("Parameter charge of charge is fingerprinted to tell a retry from a reused key, but"
                + " charge.amountCents is the field Charge.amountCents, which the codec cannot see",
                "so it would be left out of the fingerprint")),
        new Case("negative/DuplicateScope.java", Message.SCOPE_DUPLICATE,
            "retention = \"P7D\"", "@IdempotentCommand",
            List.of("Scope \"payments.charge\" is already used by com.example.shop.DuplicateScope.charge()",
                "set a distinct scope on one of them")),
        new Case("negative/ReturnsStream.java", Message.RETURN_TYPE_NOT_STORABLE,
            "exportOrders(", "exportOrders",
            List.of("exportOrders returns java.util.stream.Stream<java.lang.String>, which cannot be stored and"
                + " replayed", "Return the data itself", "instead of a stream")),
        new Case("negative/ReturnsIterator.java", Message.RETURN_TYPE_NOT_STORABLE,
            "exportOrders(", "exportOrders", List.of("instead of an iterator")),
        new Case("negative/ReturnsInputStream.java", Message.RETURN_TYPE_NOT_STORABLE,
            "exportOrders(", "exportOrders", List.of("returns java.io.InputStream", "instead of an I/O stream")),
        new Case("negative/ReturnsFuture.java", Message.RETURN_TYPE_NOT_STORABLE,
            "exportOrders(", "exportOrders",
            List.of("instead of a future (make the command synchronous and return its result)")),
        new Case("negative/ResultWrapperRaw.java", Message.RESULT_WRAPPER_RAW,
            "IdempotentResult authorize(", "authorize",
            List.of("authorize returns the raw type IdempotentResult",
                "Declare the result it wraps, e.g. IdempotentResult<Receipt>")),
        new Case("negative/ResultWrapperWildcard.java", Message.RESULT_WRAPPER_ARGUMENT,
            "authorize(", "authorize",
            List.of("authorize returns dev.idem.runtime.IdempotentResult<? extends java.lang.CharSequence>",
                "must wrap a concrete type", "Declare e.g. IdempotentResult<Receipt>")),
        new Case("negative/ResultWrapperNested.java", Message.RESULT_WRAPPER_ARGUMENT,
            "authorize(", "authorize",
            List.of("returns dev.idem.runtime.IdempotentResult<dev.idem.runtime.IdempotentResult<java.lang.String>>",
                "not a wildcard, a type variable or another IdempotentResult")),
        new Case("negative/ResultWrapperOfStream.java", Message.RETURN_TYPE_NOT_STORABLE,
            "exportOrders(", "exportOrders",
            List.of("exportOrders returns java.util.stream.Stream<java.lang.String>", "instead of a stream")),
        new Case("negative/BatchReturnsResultWrapper.java", Message.BATCH_RETURN_TYPE,
            "onOrdersPaid(", "onOrdersPaid",
            List.of("Batch method onOrdersPaid returns dev.idem.runtime.IdempotentResult<java.lang.Integer>",
                "Declare it void, or int")),
        new Case("negative/ReturnsObject.java", Message.RETURN_TYPE_NOT_STORABLE,
            "exportOrders(", "exportOrders",
            List.of("instead of Object (declare the concrete type")),
        new Case("negative/KeyWithoutCommand.java", Message.KEY_WITHOUT_COMMAND,
            "String cancelOrder(", "@IdempotencyKey",
            List.of("@IdempotencyKey on parameter orderId has no effect because cancelOrder is not annotated"
                + " @IdempotentCommand", "Annotate the method or remove @IdempotencyKey")),
        new Case("negative/KeyWithoutCommandOnClass.java", Message.KEY_WITHOUT_COMMAND,
            "public String cancelOrder(", "@IdempotencyKey",
            List.of("@IdempotencyKey on parameter orderId has no effect because cancelOrder is not annotated")),
        new Case("negative/KeyOnStaticMethod.java", Message.KEY_WITHOUT_COMMAND,
            "static String requestIdFor(", "@IdempotencyKey",
            List.of("@IdempotencyKey on parameter orderId has no effect because requestIdFor is not annotated")),
        new Case("negative/ReplayOnNotThrown.java", Message.REPLAY_ON_NOT_THROWN,
            "replayOn = CardDeclined.class", ".class)", // javac's caret for a class literal is the dot of .class
            List.of("replayOn lists com.example.shop.ReplayOnNotThrown.CardDeclined, a checked exception that"
                + " capture does not declare", "Add it to the method's throws clause, or remove it from replayOn")),
        new Case("negative/ReplayOnNotRecreatable.java", Message.REPLAY_ON_NOT_RECREATABLE,
            "replayOn = {IllegalStateException.class", ".class}", // the second element, not the first
            List.of("replayOn lists com.example.shop.ReplayOnNotRecreatable.CardDeclined, which idem cannot"
                + " recreate for a retry: none of its public constructors has parameters that each match a public"
                + " accessor", "Give it a public constructor whose parameters each have a public accessor of the"
                + " same name and type")),
        new Case("negative/ReplayOnAbstract.java", Message.REPLAY_ON_NOT_RECREATABLE,
            "replayOn = ReplayOnAbstract.Declined.class", ".class)",
            List.of("replayOn lists com.example.shop.ReplayOnAbstract.Declined, which idem cannot recreate for a"
                + " retry: it is abstract")),
        new Case("negative/BatchReturnsList.java", Message.BATCH_RETURN_TYPE,
            "List<String> onOrdersPaid(", "onOrdersPaid",
            List.of("Batch method onOrdersPaid returns java.util.List<java.lang.String>",
                "Declare it void, or int to return the number of messages processed")),
        new Case("negative/BatchTwoCollections.java", Message.BATCH_SEVERAL_COLLECTIONS,
            "@IdempotencyKey(\"name\") List<Group> groups", "@IdempotencyKey",
            List.of("Key parameters batch and groups are both collections",
                "make the other key parts per-batch values, such as the consumer group")),
        new Case("negative/BatchSetOfMessages.java", Message.BATCH_COLLECTION_TYPE,
            "Set<OrderPaid> batch", "\"messageId\"",
            List.of("Key parameter batch has type java.util.Set<com.example.shop.BatchSetOfMessages.OrderPaid>",
                "takes its messages as List<E> or Collection<E>", "resolves the accessor path on E")),
        new Case("negative/BatchKeyWithoutPath.java", Message.BATCH_KEY_WITHOUT_PATH,
            "@IdempotencyKey List<OrderPaid> batch", "@IdempotencyKey",
            List.of("Key parameter batch has type java.util.List<com.example.shop.BatchKeyWithoutPath.OrderPaid>",
                "Name the accessor of the message id, such as @IdempotencyKey(\"messageId\")")),
        new Case("negative/BatchClaimMode.java", Message.BATCH_NOT_TRANSACTIONAL,
            "mode = Mode.CLAIM", ".CLAIM", // javac's caret for a qualified constant is the dot
            List.of("Batch method onOrdersPaid sets mode, which batch handlers do not support",
                "a failure rolls the whole batch back for the broker to redeliver. Remove mode.")),
        new Case("negative/ClaimPolicyWithoutClaim.java", Message.CLAIM_POLICY_WITHOUT_CLAIM,
            "onExpiredLease = ExpiredLease.PARK", ".PARK",
            List.of("charge sets onExpiredLease, which applies to mode = Mode.CLAIM only",
                "Set mode = Mode.CLAIM, or remove onExpiredLease")),
        new Case("negative/RedisOnlyTransactional.java", Message.STORE_REDIS_NOT_CLAIM,
            "store = Store.REDIS", ".REDIS",
            List.of("sendReminder keeps its records in Redis (store = Store.REDIS), but its mode is TRANSACTIONAL",
                "Set mode = Mode.CLAIM")),
        new Case("negative/RedisOnlyParking.java", Message.STORE_REDIS_PARKING,
            "onUndeclaredFailure = UndeclaredFailure.PARK", ".PARK",
            List.of("sendReminder keeps its records in Redis (store = Store.REDIS) but sets onUndeclaredFailure ="
                + " PARK", "Remove onUndeclaredFailure")),
        new Case("negative/RedisOnlyKeyTime.java", Message.STORE_REDIS_KEY_TIME,
            "keyTime = KeyTime.UUID_V7", ".UUID_V7",
            List.of("sendReminder keeps its records in Redis (store = Store.REDIS) but sets keyTime", "Remove keyTime")),
        new Case("negative/RedisOnlyBatch.java", Message.STORE_REDIS_BATCH,
            "store = Store.REDIS", ".REDIS",
            List.of("Batch handler onReminders sets store = Store.REDIS",
                "Remove store, or handle one message per call with a Redis-only CLAIM command")),
        new Case("negative/LookupFirstRedis.java", Message.LOOKUP_FIRST_REDIS,
            "lookupFirst = true", "true",
            List.of("sendReminder keeps its records in Redis (store = Store.REDIS) but sets lookupFirst",
                "Remove lookupFirst")),
        new Case("negative/LookupFirstBatch.java", Message.LOOKUP_FIRST_BATCH,
            "lookupFirst = true", "true",
            List.of("Batch handler onReminders sets lookupFirst", "Remove lookupFirst")),
        new Case("negative/WindowWithKey.java", Message.WINDOW_WITH_KEY,
            "@IdempotencyKey String requestId", "@IdempotencyKey",
            List.of("addToCart sets window, which derives its key from the caller's identity and the payload, but also"
                + " marks parameter requestId @IdempotencyKey", "Remove @IdempotencyKey to derive the key")),
        new Case("negative/WindowIdentityMissing.java", Message.WINDOW_IDENTITY_MISSING,
            "identity = \"user\"", "\"user\"",
            List.of("addToCart sets window = \"PT5S\" but has no parameter named \"user\"",
                "(one of: userId, sku)")),
        new Case("negative/IdentityWithoutWindow.java", Message.IDENTITY_WITHOUT_WINDOW,
            "identity = \"userId\"", "\"userId\"",
            List.of("addToCart sets identity = \"userId\", which only a command with a window uses")),
        new Case("negative/WindowWithRetention.java", Message.WINDOW_WITH_RETENTION,
            "retention = \"P1D\"", "\"P1D\"",
            List.of("addToCart sets both window and retention", "Remove retention.")),
        new Case("negative/WindowWithKeyTime.java", Message.WINDOW_WITH_KEY_TIME,
            "keyTime = KeyTime.ULID", ".ULID",
            List.of("addToCart sets window and keyTime", "Remove keyTime.")),
        new Case("negative/WindowInvalid.java", Message.DURATION_INVALID,
            "window = \"5 seconds\"", "\"5 seconds\"",
            List.of("window = \"5 seconds\" is not a positive ISO-8601 duration")),
        new Case("negative/SingleFlightDurationInvalid.java", Message.SINGLE_FLIGHT_DURATION_INVALID,
            "lockAtMostFor = \"10 minutes\"", "\"10 minutes\"",
            List.of("@SingleFlight lockAtMostFor = \"10 minutes\" is not a positive (at least one millisecond)"
                + " ISO-8601 duration", "Write a duration such as \"PT10M\"")),
        new Case("negative/SingleFlightAtLeastNotBelowAtMost.java", Message.SINGLE_FLIGHT_AT_LEAST_NOT_BELOW_AT_MOST,
            "lockAtLeastFor = \"PT5M\"", "\"PT5M\"",
            List.of("@SingleFlight on nightlyReport holds the lock at least PT5M (lockAtLeastFor) but at most PT1M",
                "Make lockAtLeastFor shorter than lockAtMostFor")),
        new Case("negative/SingleFlightReturnsValue.java", Message.SINGLE_FLIGHT_RETURN_TYPE,
            "int nightlyReport(", "nightlyReport",
            List.of("@SingleFlight method nightlyReport returns int", "Declare it void, or Optional<Integer>")),
        new Case("negative/OutboxDestinationInvalid.java", Message.OUTBOX_DESTINATION_INVALID,
            "destination = \" orders\"", "\" orders\"",
            List.of("@OutboxEvent(destination = \" orders\") on orderCreated is not a destination",
                "1 to 255 characters without blanks around it")),
        new Case("negative/OutboxParameters.java", Message.OUTBOX_PARAMETERS,
            "void orderCreated(", "orderCreated",
            List.of("@OutboxEvent method orderCreated takes com.example.events.OutboxParameters.OrderCreated, java.lang.String",
                "optionally a second parameter Map<String, String> of headers")),
        new Case("negative/OutboxReturnType.java", Message.OUTBOX_RETURN_TYPE,
            "long orderCreated(", "orderCreated",
            List.of("@OutboxEvent method orderCreated returns long", "Return void, or String")),
        new Case("negative/OutboxPayloadNotReplayable.java", Message.OUTBOX_PAYLOAD_NOT_REPLAYABLE,
            "void orderShipped(", "shipped",
            List.of("of @OutboxEvent method orderShipped would not reach consumers as it was", "payload.details",
                "Consumers read it back as JSON like a stored result")),
        new Case("negative/OutboxKeyPath.java", Message.OUTBOX_KEY_PATH,
            "key = \"customerId\"", "\"customerId\"",
            List.of("@OutboxEvent(key = \"customerId\") on orderCreated does not name a property of the payload",
                "has no public accessor customerId() or getCustomerId()", "or leave key out")),
        new Case("negative/OutboxKeyType.java", Message.OUTBOX_KEY_TYPE,
            "key = \"amount\"", "\"amount\"",
            List.of("@OutboxEvent(key = \"amount\") on orderCreated leads to a value of type double",
                "point it at a String, UUID")),
        new Case("negative/OutboxMixed.java", Message.OUTBOX_MIXED,
            "void orderCancelled(", "orderCancelled",
            List.of("orderCancelled is an abstract method without @OutboxEvent in interface OutboxMixed",
                "annotate every abstract method @OutboxEvent")),
        new Case("negative/OutboxTypeInvalid.java", Message.OUTBOX_TYPE_INVALID,
            "type = \"\"", "\"\"",
            List.of("@OutboxEvent(type = \"\") on orderCreated is not an event type",
                "leave type out to use the payload's simple name")),
        new Case("negative/OutboxInterfaceGeneric.java", Message.OUTBOX_INTERFACE_GENERIC,
            "public interface OutboxInterfaceGeneric<E>", "interface",
            List.of("Interface com.example.events.OutboxInterfaceGeneric declares type parameters",
                "Declare the @OutboxEvent methods on a non-generic interface")),
        new Case("negative/SingleFlightNameInvalid.java", Message.SINGLE_FLIGHT_NAME_INVALID,
            "name = \" nightly\"", "\" nightly\"",
            List.of("@SingleFlight name = \" nightly\" must be 1 to 255 characters, without leading or trailing"
                + " whitespace", "Choose a name such as \"reports.nightly\"")),
        new Case("negative/SingleFlightAndCommand.java", Message.SINGLE_FLIGHT_AND_COMMAND,
            "@SingleFlight", "@SingleFlight",
            List.of("settle is annotated both @SingleFlight and @IdempotentCommand", "keep one annotation")),
        new Case("negative/ReconcilerUnknownCommand.java", Message.RECONCILER_UNKNOWN_COMMAND,
            "@Reconciles(\"chrage\")", "\"chrage\"",
            List.of("@Reconciles(\"chrage\") on reconcileCharge names no @IdempotentCommand method of"
                + " ReconcilerUnknownCommand", "Name the CLAIM command this method reconciles")),
        new Case("negative/ReconcilerCommandNeverParks.java", Message.RECONCILER_COMMAND_NEVER_PARKS,
            "@Reconciles(\"charge\")", "\"charge\"",
            List.of("charge parks no key (onExpiredLease = TAKE_OVER, onUndeclaredFailure = RELEASE)",
                "declare one of them on the command, or remove the reconciler")),
        new Case("negative/ReconcilerParameters.java", Message.RECONCILER_PARAMETERS,
            "@Reconciles(\"charge\")", "@Reconciles",
            List.of("Reconciler reconcileCharge takes (java.lang.String, int) but the command charge takes"
                + " (java.lang.String, long)", "declare exactly the command's parameter types")),
        new Case("negative/ReconcilerResultType.java", Message.RECONCILER_RESULT_TYPE,
            "@Reconciles(\"charge\")", "@Reconciles",
            List.of("Reconciler reconcileCharge returns dev.idem.runtime.Reconciliation<java.lang.String>, but it"
                + " must return Reconciliation<java.lang.Long>", "(Void for a void command)")),
        new Case("negative/ReconcilerDuplicate.java", Message.RECONCILER_DUPLICATE,
            "@Reconciles(value = \"charge\")", "\"charge\"",
            List.of("askGateway reconciles charge, which reconcileCharge already reconciles", "keep one")),
        new Case("negative/ReconcilerAndCommand.java", Message.RECONCILER_AND_OTHER_ANNOTATION,
            "@Reconciles(\"charge\")", "@Reconciles",
            List.of("reconcileCharge is annotated both @Reconciles and @IdempotentCommand",
                "keep @Reconciles on a method of its own")),
        new Case("negative/ReconcilerOfResultWrapper.java", Message.RECONCILER_OF_RESULT_WRAPPER,
            "@Reconciles(\"charge\")", "\"charge\"",
            List.of("reconcileCharge reconciles charge, which returns IdempotentResult<java.lang.String>",
                "Declare the command to return java.lang.String")),
        new Case("negative/SingleFlightWaitTimeoutWithoutWait.java", Message.SINGLE_FLIGHT_WAIT_TIMEOUT_WITHOUT_WAIT,
            "waitTimeout = \"PT30S\"", "\"PT30S\"",
            List.of("@SingleFlight on nightlyReport sets waitTimeout, which only onBusy = OnBusy.WAIT uses",
                "Set onBusy = OnBusy.WAIT, or remove waitTimeout")),
        new Case("negative/SingleFlightNameDuplicate.java", Message.SINGLE_FLIGHT_NAME_DUPLICATE,
            "@SingleFlight(name = \"reports\", lockAtMostFor = \"PT5M\")", "@SingleFlight",
            List.of("Lock name \"reports\" is already used by com.example.jobs.SingleFlightNameDuplicate"
                + ".nightlyReport()", "give one of them a name of its own")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void reportsTheProblemOnceWhereItIsWithAFix(Case c) {
    JavaFileObject file = resource(c.resource());
    Compilations.Run run = run(file);
    Compilation compilation = run.compilation();

    assertThat(compilation).failed();
    assertThat(compilation).hadErrorContaining("[" + c.message().tag() + "] ").inFile(file).onLineContaining(c.line());
    for (String fragment : c.fragments()) {
      assertThat(compilation).hadErrorContaining(fragment).inFile(file).onLineContaining(c.line());
    }
    // Exactly one error in all: no second report of the same problem, no javac follow-up errors.
    assertThat(compilation).hadErrorCount(1);
    assertPointsAt(onlyError(compilation, c.message().tag()), c.token());
    assertWithMessage("a failing interface must not be generated").that(run.generatedServices()).isEmpty();
    COVERED.add(c.message());
  }

  /** Two interfaces claim the same scope: the second (in name order) is reported, the first is generated. */
  @Test
  void duplicateScopeAcrossInterfaces() {
    JavaFileObject cards = resource("negative/duplicatescope/CardPayments.java");
    JavaFileObject wallets = resource("negative/duplicatescope/WalletPayments.java");
    // Both orders of the inputs give the same report: services are processed in name order.
    for (Compilations.Run run : List.of(run(cards, wallets), run(wallets, cards))) {
      Compilation compilation = run.compilation();
      assertThat(compilation).hadErrorCount(1);
      assertThat(compilation)
          .hadErrorContaining("[IDEM-010] Scope \"payments.charge\" is already used by"
              + " com.example.payments.CardPayments.charge()")
          .inFile(wallets)
          .onLineContaining("@IdempotentCommand(scope = \"payments.charge\")");
      assertPointsAt(onlyError(compilation, "IDEM-010"), "@IdempotentCommand");
      assertThat(run.generatedServices()).containsExactly("com.example.payments.CardPayments_Idempotent");
    }
    COVERED.add(Message.SCOPE_DUPLICATE);
  }

  /** A service with several problems reports each of them once, in source order, and still generates nothing. */
  @Test
  void reportsEveryProblemOfAnInterfaceOnce() {
    JavaFileObject file = resource("negative/SeveralProblems.java");
    Compilations.Run run = run(file);
    Compilation compilation = run.compilation();

    List<String> tags = compilation.errors().stream()
        .map(error -> error.getMessage(null).substring(0, "[IDEM-000]".length()))
        .collect(Collectors.toList());
    assertThat(tags).containsExactly("[IDEM-008]", "[IDEM-004]", "[IDEM-002]", "[IDEM-012]").inOrder();
    assertThat(compilation).hadErrorContaining("[IDEM-008]").inFile(file).onLineContaining("retention = \"1d\"");
    assertThat(compilation).hadErrorContaining("[IDEM-004]").inFile(file).onLineContaining("scope = \"orders.ship\"");
    assertThat(compilation).hadErrorContaining("[IDEM-002]").inFile(file).onLineContaining("<T> T track(");
    assertThat(compilation).hadErrorContaining("[IDEM-012]").inFile(file).onLineContaining("void audit(");
    assertThat(run.generatedServices()).isEmpty();
  }

  /** The manifest of the released version, written by compiling it, into a directory as a build would keep it. */
  private static Path releasedManifests() throws IOException {
    return releasedManifests("manifest/v1/Payments.java", "com.example.manifest.Payments");
  }

  private static Path releasedManifests(String source, String service) throws IOException {
    Compilation released = Compilations.compile(resource(source));
    assertThat(released).succeededWithoutWarnings();
    Path directory = Files.createTempDirectory("idem-released");
    String name = Manifest.resourceName(service);
    JavaFileObject manifest = released.generatedFile(StandardLocation.CLASS_OUTPUT, name).orElseThrow();
    Path file = directory.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, Compilations.contentOf(manifest));
    return directory;
  }

  @Test
  void aRenamedMethodAndAChangedResultShapeBreakTheBuild() throws IOException {
    JavaFileObject next = resource("manifest/v2/Payments.java");
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + releasedManifests()))
        .compile(next);

    assertThat(compilation).hadErrorCount(2);
    assertThat(compilation).hadErrorContaining("[IDEM-046] The previous manifest lists scope"
            + " \"com.example.manifest.Payments.pay\" (method pay of com.example.manifest.Payments), which this"
            + " build no longer has, so records stored under it would not be seen after the deploy and retries would"
            + " run again; if pay() was renamed, set scope = \"com.example.manifest.Payments.pay\" on the method"
            + " that replaced it to keep its records. If it is meant to go, update the previous manifest.")
        .inFile(next).onLineContaining("public interface Payments");
    assertPointsAt(onlyError(compilation, "IDEM-046"), "interface");
    assertThat(compilation).hadErrorContaining("[IDEM-047] The result of refund (scope \"payments.refund\")"
            + " changed shape since the previous manifest, so records stored before would not replay as they were:"
            + " was com.example.manifest.Payments.Receipt{amountCents:long,id:java.lang.String}, now"
            + " com.example.manifest.Payments.Receipt{amountCents:long,currency:java.lang.String,"
            + "id:java.lang.String}")
        .inFile(next).onLineContaining("Receipt refund(");
    assertPointsAt(onlyError(compilation, "IDEM-047"), "refund");
    COVERED.add(Message.MANIFEST_SCOPE_GONE);
    COVERED.add(Message.MANIFEST_SHAPE_CHANGED);
  }

  @Test
  void asWarningsTheSameChangesLetTheBuildPass() throws IOException {
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + releasedManifests(),
            "-A" + PreviousManifests.SEVERITY_OPTION + "=warning"))
        .compile(resource("manifest/v2/Payments.java"));
    assertThat(compilation).succeeded();
    assertThat(compilation).hadWarningContaining("[IDEM-046]");
    assertThat(compilation).hadWarningContaining("[IDEM-047]");
  }

  /** Added or reordered enum constants keep stored records readable: no diagnostic, and the same stored hash. */
  @Test
  void addedOrReorderedEnumConstantsPassTheCheck() throws IOException {
    Path released = releasedManifests("manifest/enums/v1/Orders.java", "com.example.manifest.enums.Orders");
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + released))
        .compile(resource("manifest/enums/added/Orders.java"));
    assertThat(compilation).succeededWithoutWarnings();
    String name = Manifest.resourceName("com.example.manifest.enums.Orders");
    String before = Files.readString(released.resolve(name));
    String after = Compilations.contentOf(
        compilation.generatedFile(StandardLocation.CLASS_OUTPUT, name).orElseThrow());
    assertThat(hashIn(after)).isEqualTo(hashIn(before));
  }

  private static String hashIn(String manifest) {
    java.util.regex.Matcher hash = java.util.regex.Pattern.compile("\"resultShapeHash\": \"([0-9a-f]{16})\"")
        .matcher(manifest);
    assertThat(hash.find()).isTrue();
    return hash.group(1);
  }

  /** A removed enum constant is reported: records stored with it would fail to replay. */
  @Test
  void aRemovedEnumConstantBreaksTheBuild() throws IOException {
    Path released = releasedManifests("manifest/enums/v1/Orders.java", "com.example.manifest.enums.Orders");
    JavaFileObject next = resource("manifest/enums/removed/Orders.java");
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + released))
        .compile(next);
    assertThat(compilation).hadErrorCount(1);
    assertThat(compilation).hadErrorContaining("[IDEM-050] The result of place (scope \"orders.place\") can no"
            + " longer hold com.example.manifest.enums.Orders.Status.SHIPPED, which the previous manifest's result"
            + " shape had, so records stored with them would fail to replay (IdempotencyResultShapeException)"
            + " until they expire. Keep the constants (adding or reordering constants is safe), or give the command"
            + " a new scope (not \"orders.place\").")
        .inFile(next).onLineContaining("Order place(");
    assertPointsAt(onlyError(compilation, "IDEM-050"), "place");
    COVERED.add(Message.MANIFEST_ENUM_CONSTANT_GONE);
  }

  @Test
  void anUnchangedServicePassesTheCheck() throws IOException {
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + releasedManifests()))
        .compile(resource("manifest/v1/Payments.java"));
    assertThat(compilation).succeededWithoutWarnings();
  }

  @Test
  void aRenamedServiceIsReported() throws IOException {
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + releasedManifests()))
        .compile(resource("manifest/v3/Billing.java"));
    assertThat(compilation).hadErrorCount(1);
    assertThat(compilation).hadErrorContaining("[IDEM-048] The previous manifest lists service"
        + " com.example.manifest.Payments, which this build no longer has; records stored under its scopes"
        + " com.example.manifest.Payments.pay, payments.refund would not be seen after the deploy");
    COVERED.add(Message.MANIFEST_SERVICE_GONE);
  }

  @Test
  void anUnreadablePreviousManifestIsReported() throws IOException {
    Path broken = Files.createTempFile("idem-broken", ".json");
    Files.writeString(broken, "{\"service\": ");
    Compilation compilation = Compilations.idem()
        .withOptions(withOption("-A" + PreviousManifests.OPTION + "=" + broken))
        .compile(resource("manifest/v1/Payments.java"));
    assertThat(compilation).hadErrorContaining("[IDEM-049] Cannot use the previous idem manifest " + broken
        + ": JSON: end of text where a value was expected");
    COVERED.add(Message.MANIFEST_UNREADABLE);
  }

  private static List<String> withOption(String... options) {
    List<String> all = new java.util.ArrayList<>(Compilations.OPTIONS);
    all.addAll(List.of(options));
    return all;
  }

  @AfterAll
  static void everyMessageIsCovered() {
    Set<Message> missing = EnumSet.allOf(Message.class);
    missing.removeAll(COVERED);
    // The @StateTransition messages (IDEM-100..129) are covered by TransitionDiagnosticsTest; the outbox's (IDEM-13x),
    // the reconcilers' (IDEM-14x) and later ranges here.
    missing.removeIf(message -> message.tag().matches("IDEM-1[0-2]\\d"));
    // Those about interfaces as users write them (IDEM-06x) by UsersInterfacesTest.
    missing.removeIf(message -> message.tag().startsWith("IDEM-06"));
    // Those about the processor and its environment (IDEM-9xx) by ProcessorResilienceTest.
    missing.removeIf(message -> message.tag().startsWith("IDEM-9"));
    // Only meaningful when the whole class ran; a filtered run (-Dtest=...#one) covers a subset on purpose.
    if (COVERED.size() > 1) {
      assertWithMessage("messages without a negative test").that(missing).isEmpty();
    }
  }

}
