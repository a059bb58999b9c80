package dev.idem.processor;

import javax.tools.Diagnostic;

/**
 * Every diagnostic the processor reports, in one place. Each has a stable tag (quoted in the README and safe to
 * search for) and a sentence that says what is wrong and how to fix it.
 */
enum Message {
  NOT_AN_INTERFACE_METHOD(
      "IDEM-001",
      "@%s must be on an abstract method of an interface, but %s is %s. Put it on a method of the service"
          + " interface; idem generates the implementing class."),
  GENERIC_METHOD(
      "IDEM-002",
      "Method %s declares type parameters; a stored result is replayed with one concrete type. Replace the type"
          + " parameters with concrete types."),
  GENERIC_INTERFACE(
      "IDEM-003",
      "Interface %s declares type parameters, so idem cannot generate one class for it. Declare a non-generic"
          + " sub-interface that fixes them (interface OrderCommands extends %s<Order>) and move the annotations"
          + " there."),
  NO_KEY(
      "IDEM-004",
      "@IdempotentCommand method %s has no @IdempotencyKey parameter. Mark the parameter that identifies one"
          + " business action, e.g. @IdempotencyKey String requestId."),
  KEY_PATH_SYNTAX(
      "IDEM-005",
      "@IdempotencyKey(\"%s\") is not an accessor path. Write accessor names separated by dots, such as"
          + " \"messageId\" or \"header.messageId\"."),
  KEY_PATH_UNRESOLVED(
      "IDEM-006",
      "@IdempotencyKey(\"%s\") cannot be resolved: %s has no accessor %s() or %s(). Name a public no-argument"
          + " accessor of %s; nested paths are written a.b."),
  KEY_TYPE_UNSUPPORTED(
      "IDEM-007",
      "Idempotency key part %s has type %s. Key parts may be String, UUID, an integral number (byte, short, int,"
          + " long, their wrappers, BigInteger) or an enum; point the key at such a value."),
  DURATION_INVALID(
      "IDEM-008",
      "%s = \"%s\" is not a positive ISO-8601 duration of at least one millisecond. Write a duration such as \"PT30S\", \"PT15M\" or \"P1D\""
          + " (months and years are not durations: use days, e.g. \"P30D\")."),
  SCOPE_INVALID(
      "IDEM-009",
      "scope = \"%s\" must be 1 to 128 characters of letters, digits and ._:- because it namespaces the stored"
          + " keys. Choose a name such as \"payments.charge\"."),
  SCOPE_DUPLICATE(
      "IDEM-010",
      "Scope \"%s\" is already used by %s. Each command needs its own scope, or a retry of one would replay the"
          + " other's result: set a distinct scope on one of them."),
  RETURN_TYPE_NOT_STORABLE(
      "IDEM-011",
      "%s returns %s, which cannot be stored and replayed to a retry. Return the data itself (a value, a record,"
          + " a List or Map of them) instead of %s."),
  KEY_WITHOUT_COMMAND(
      "IDEM-012",
      "@IdempotencyKey on parameter %s has no effect because %s is not annotated @IdempotentCommand. Annotate the"
          + " method or remove @IdempotencyKey."),
  CLAIM_POLICY_WITHOUT_CLAIM(
      "IDEM-016",
      "%s sets %s, which applies to mode = Mode.CLAIM only: a TRANSACTIONAL command records its outcome in the"
          + " body's transaction, so it has no lease to expire and no claim to release. Set mode = Mode.CLAIM, or"
          + " remove %s."),
  // IDEM-013 is retired (it rejected mode = CLAIM before idem supported it); tags are never reused.
  REPLAY_ON_NOT_THROWN(
      "IDEM-014",
      "replayOn lists %s, a checked exception that %s does not declare, so its delegate can never throw it. Add it"
          + " to the method's throws clause, or remove it from replayOn."),
  REPLAY_ON_NOT_RECREATABLE(
      "IDEM-015",
      "replayOn lists %s, which idem cannot recreate for a retry: %s. Give it a public constructor whose parameters"
          + " each have a public accessor of the same name and type, e.g. CardDeclinedException(String message,"
          + " String declineCode) with getMessage() and declineCode()."),

  // Batch consumers: IDEM-020 onwards (IDEM-016 to IDEM-019 are left to the CLAIM mode).
  BATCH_RETURN_TYPE(
      "IDEM-020",
      "Batch method %s returns %s, but a batch handler stores no result per message. Declare it void, or int to"
          + " return the number of messages processed (0 when every message was a duplicate)."),
  BATCH_SEVERAL_COLLECTIONS(
      "IDEM-021",
      "Key parameters %s and %s are both collections, but a batch has one collection of messages. Keep the messages"
          + " in one List parameter and make the other key parts per-batch values, such as the consumer group."),
  BATCH_COLLECTION_TYPE(
      "IDEM-022",
      "Key parameter %s has type %s. A batch handler takes its messages as List<E> or Collection<E> of a message"
          + " type E, such as List<OrderPaid>, and resolves the accessor path on E: declare the parameter so."),
  BATCH_KEY_WITHOUT_PATH(
      "IDEM-023",
      "Key parameter %s has type %s, but each message of a batch needs its own key. Name the accessor of the"
          + " message id, such as @IdempotencyKey(\"messageId\")."),
  BATCH_NOT_TRANSACTIONAL(
      "IDEM-024",
      "Batch method %s sets %s, which batch handlers do not support: a batch claims its messages and runs in one"
          + " transaction, and a failure rolls the whole batch back for the broker to redeliver. Remove %s."),

  // Replay fidelity (issue #9): IDEM-040 onwards.
  SCOPE_DEFAULT_UNUSABLE(
      "IDEM-040",
      "The default scope \"%s\" (qualified interface name and method, %d characters) does not fit the scope column:"
          + " at most 128 characters of letters, digits and ._:-. Set scope = \"...\" on the method, e.g."
          + " scope = \"payments.charge\"."),
  SERVICE_NOT_ACCESSIBLE(
      "IDEM-041",
      "Interface %s cannot be implemented by the generated top-level class %s, because %s. Make the interface (and"
          + " every type it is nested in) public or package-private, declared outside any method."),
  SIGNATURE_TYPE_NOT_ACCESSIBLE(
      "IDEM-042",
      "Method %s mentions %s, which the generated class %s cannot name, because %s. Make that type public or"
          + " package-private."),
  RESULT_NOT_REPLAYABLE(
      "IDEM-043",
      "%s returns %s, which would be stored but not replayed exactly: %s %s. Fix: %s."),
  REPLAY_ON_ARGUMENT_NOT_REPLAYABLE(
      "IDEM-044",
      "replayOn lists %s, whose stored constructor argument would not be recreated exactly: %s %s. Fix: %s."),
  PAYLOAD_NOT_FINGERPRINTED(
      "IDEM-045",
      "Parameter %s of %s is fingerprinted to tell a retry from a reused key, but %s %s. Fix: %s."),
  MANIFEST_SCOPE_GONE(
      "IDEM-046",
      "The previous manifest lists scope \"%s\" (method %s of %s), which this build no longer has, so records"
          + " stored under it would not be seen after the deploy and retries would run again%s. If it is meant to"
          + " go, update the previous manifest."),
  MANIFEST_SHAPE_CHANGED(
      "IDEM-047",
      "The result of %s (scope \"%s\") changed shape since the previous manifest, so records stored before would"
          + " not replay as they were: was %s, now %s. Keep the result type as it was, or"
          + " give the command a new scope (not \"%s\") so that old records are not replayed as the new type."),
  MANIFEST_ENUM_CONSTANT_GONE(
      "IDEM-050",
      "The result of %s (scope \"%s\") can no longer hold %s, which the previous manifest's result shape had, so"
          + " records stored with them would fail to replay (IdempotencyResultShapeException) until they expire."
          + " Keep the constants (adding or reordering constants is safe), or give the command a new scope (not"
          + " \"%s\")."),
  MANIFEST_SERVICE_GONE(
      "IDEM-048",
      "The previous manifest lists service %s, which this build no longer has; records stored under its scopes %s"
          + " would not be seen after the deploy. Keep the scopes (set scope = \"...\" where the commands moved),"
          + " or update the previous manifest."),
  MANIFEST_UNREADABLE(
      "IDEM-049",
      "Cannot use the previous idem manifest %s: %s. Point -Aidem.previousManifest at a manifest file or a"
          + " directory of them (META-INF/idem/*.json of the released build)."),
  // Replay fidelity, types the codec stores but cannot give back as they were (acceptance test): IDEM-051 onwards.
  RESULT_COLLECTION_KIND_LOST(
      "IDEM-051",
      "%s returns %s, which would be stored but not replayed exactly: %s is declared %s, which does not say which"
          + " collection to create, so a retry gets an ArrayList whatever the method returned (a Set comes back as a"
          + " List). Declare List, Set or another concrete collection interface, e.g. Set<String>."),
  RESULT_COMPARATOR_LOST(
      "IDEM-052",
      "%s returns %s, which would be stored but not replayed exactly: %s is declared %s, a sorted %s: its"
          + " comparator cannot be stored, so a retry gets it in natural order (a reverse-order or case-insensitive"
          + " one comes back reordered). Return a List, LinkedHashSet or LinkedHashMap, whose order replays"
          + " exactly."),
  REPLAY_ON_MESSAGE_OVERRIDDEN(
      "IDEM-053",
      "replayOn lists %s, whose getMessage() is overridden by %s, but idem recreates it by passing the value of"
          + " getMessage() to its constructor parameter %s, so a retry would get the message decorated twice. Keep"
          + " getMessage() un-overridden (build the message in the constructor and pass it to super), or add a"
          + " public accessor %s() that returns the constructor's argument as given: idem then captures that."),
  RESULT_PROPERTY_IGNORED(
      "IDEM-054",
      "%s returns %s, which would be stored but could not be read back: %s is dropped by %s, but %s needs it to"
          + " create the result. Remove %s (if your API serves this type as JSON, serve a separate type there), or"
          + " leave the property out of the type."),

  // Single-flight methods (@SingleFlight): IDEM-09x.
  SINGLE_FLIGHT_DURATION_INVALID(
      "IDEM-090",
      "@SingleFlight %s = \"%s\" is not %s ISO-8601 duration. Write a duration such as \"PT10M\" or \"PT5S\""
          + " (months and years are not durations: use days, e.g. \"P1D\")."),
  SINGLE_FLIGHT_AT_LEAST_NOT_BELOW_AT_MOST(
      "IDEM-091",
      "@SingleFlight on %s holds the lock at least %s (lockAtLeastFor) but at most %s (lockAtMostFor), so the lease"
          + " would end before the lock may be released. Make lockAtLeastFor shorter than lockAtMostFor."),
  SINGLE_FLIGHT_RETURN_TYPE(
      "IDEM-092",
      "@SingleFlight method %s returns %s, but a call that does not get the lock must return something that says"
          + " \"not run here\". Declare it void, or Optional<%s>: empty when another instance holds the lock."),
  SINGLE_FLIGHT_NAME_DUPLICATE(
      "IDEM-093",
      "Lock name \"%s\" is already used by %s. Two methods sharing a lock exclude each other and share fencing"
          + " tokens: give one of them a name of its own, or call one from the other."),
  SINGLE_FLIGHT_NAME_INVALID(
      "IDEM-094",
      "@SingleFlight name = \"%s\" must be 1 to 255 characters, without leading or trailing whitespace, because it"
          + " is the key of the lock's row. Choose a name such as \"reports.nightly\"."),
  SINGLE_FLIGHT_AND_COMMAND(
      "IDEM-095",
      "%s is annotated both @SingleFlight and @%s. A single-flight job has no idempotency key, and a command or"
          + " transition already runs once per key or guard; keep one annotation, and call the command from the"
          + " job's body if the job must run it."),
  SINGLE_FLIGHT_WAIT_TIMEOUT_WITHOUT_WAIT(
      "IDEM-096",
      "@SingleFlight on %s sets waitTimeout, which only onBusy = OnBusy.WAIT uses: with OnBusy.SKIP a busy call"
          + " returns at once. Set onBusy = OnBusy.WAIT, or remove waitTimeout."),

  // Reconcilers of parked CLAIM commands (@Reconciles): IDEM-097 to 099, IDEM-140 to 143.
  RECONCILER_UNKNOWN_COMMAND(
      "IDEM-097",
      "@Reconciles(\"%s\") on %s names no @IdempotentCommand method of %s. Name the CLAIM command this method"
          + " reconciles, by its method name (one that is not overloaded)."),
  RECONCILER_COMMAND_NEVER_PARKS(
      "IDEM-098",
      "@Reconciles(\"%s\") on %s: %s. A reconciler answers for keys parked OUTCOME_UNKNOWN, which only a CLAIM"
          + " command with onExpiredLease = ExpiredLease.PARK or onUndeclaredFailure = UndeclaredFailure.PARK"
          + " leaves; declare one of them on the command, or remove the reconciler."),
  RECONCILER_PARAMETERS(
      "IDEM-099",
      "Reconciler %s takes (%s) but the command %s takes (%s). idem calls it with the retry's arguments, which are"
          + " the parked call's: declare exactly the command's parameter types, in the same order."),
  RECONCILER_RESULT_TYPE(
      "IDEM-140",
      "Reconciler %s returns %s, but it must return Reconciliation<%s>: dev.idem.runtime.Reconciliation of the"
          + " result type of the command %s (Void for a void command), so that a \"happened\" answer can be"
          + " recorded and replayed as the command's result."),
  RECONCILER_DUPLICATE(
      "IDEM-141",
      "%s reconciles %s, which %s already reconciles. A command has at most one reconciler: keep one."),
  RECONCILER_AND_OTHER_ANNOTATION(
      "IDEM-142",
      "%s is annotated both @Reconciles and @%s. A reconciler is a query the generated class forwards to the"
          + " delegate, not a command, transition or job of its own: keep @Reconciles on a method of its own."),

  RECONCILER_OF_RESULT_WRAPPER(
      "IDEM-143",
      "%s reconciles %s, which returns IdempotentResult<%s>; reconcilers of such commands are not supported yet."
          + " Declare the command to return %s, or resolve its parked keys with IdemAdmin.resolve instead of a"
          + " reconciler."),

  // Interfaces as users write them: IDEM-06x.
  GENERIC_INHERITING_INTERFACE(
      "IDEM-060",
      "Interface %s inherits idem-annotated methods but declares type parameters, so idem generates no"
          + " %s_Idempotent for it. To get one, declare a non-generic sub-interface that fixes them (interface"
          + " OrderPayments extends %s<Order> {}); ignore this warning if %s is not meant to be implemented by"
          + " idem.",
      Diagnostic.Kind.WARNING),

  // State transitions (@StateTransition, @EntityId, @ExpectedVersion): IDEM-1xx.
  TRANSITION_NOT_AN_ENTITY(
      "IDEM-101",
      "entity = %s.class is not annotated @jakarta.persistence.Entity, so idem cannot know its table. Name the"
          + " JPA entity class whose state this method changes."),
  TRANSITION_ENTITY_WITHOUT_ID(
      "IDEM-102",
      "Entity %s has no single @Id field or getter, so the transition cannot find its row. Annotate the id with"
          + " @jakarta.persistence.Id (composite ids are not supported by transitions)."),
  TRANSITION_FIELD_MISSING(
      "IDEM-103",
      "Entity %s has no persistent field \"%s\".%s Set field to the name of the state field."),
  TRANSITION_FIELD_TYPE(
      "IDEM-104",
      "State field %s.%s has type %s. A state field must be an enum or a String; change its type or name another"
          + " field."),
  TRANSITION_UNKNOWN_STATE(
      "IDEM-105",
      "%s = \"%s\" is not a constant of %s.%s"),
  TRANSITION_TO_IN_FROM(
      "IDEM-106",
      "to = \"%s\" is also listed in from, so a repeated call could never be told from a first one. Remove"
          + " \"%s\" from from."),
  TRANSITION_ALSO_ACCEPT_OVERLAP(
      "IDEM-107",
      "alsoAccept = \"%s\" is %s; a state is either a start of the transition, its target or a later state."
          + " Remove it from alsoAccept."),
  TRANSITION_NO_ENTITY_ID(
      "IDEM-108",
      "@StateTransition method %s has no @EntityId parameter. Add the entity's id as a parameter and mark it"
          + " @EntityId, e.g. %s(@EntityId %s id)."),
  TRANSITION_ENTITY_ID_DUPLICATE(
      "IDEM-109",
      "Parameter %s is the second @EntityId of %s; a transition changes exactly one row. Keep @EntityId on one"
          + " parameter."),
  TRANSITION_ENTITY_ID_TYPE(
      "IDEM-110",
      "@EntityId parameter %s has type %s, but the @Id of %s is %s. Declare the parameter as %s."),
  TRANSITION_VERSION_WITHOUT_VERSION(
      "IDEM-111",
      "@ExpectedVersion on %s, but entity %s has no @Version field. Add @jakarta.persistence.Version to the"
          + " entity or remove @ExpectedVersion."),
  TRANSITION_VERSION_TYPE(
      "IDEM-112",
      "@ExpectedVersion parameter %s has type %s. Declare it long or int (or Long, Integer), like the version it"
          + " is compared with."),
  TRANSITION_RETURN_TYPE(
      "IDEM-113",
      "@StateTransition method %s returns %s. Return TransitionResult (APPLIED or ALREADY_APPLIED), boolean (true"
          + " when applied by this call) or void."),
  TRANSITION_EXTRA_PARAMETER(
      "IDEM-114",
      "Parameter %s of @StateTransition method %s is neither @EntityId nor @ExpectedVersion, and a generated"
          + " transition has no use for it. Remove it, or annotate it."),
  TRANSITION_AND_COMMAND(
      "IDEM-115",
      "%s is annotated both @StateTransition and @IdempotentCommand. A transition is idempotent by its guard;"
          + " keep one of the two annotations."),
  TRANSITION_PARAMETER_WITHOUT_TRANSITION(
      "IDEM-116",
      "@%s on parameter %s has no effect because %s is not annotated @StateTransition. Annotate the method or"
          + " remove @%s."),
  // Redis-only commands (store = Store.REDIS): IDEM-15x.
  STORE_REDIS_NOT_CLAIM(
      "IDEM-150",
      "%s keeps its records in Redis (store = Store.REDIS), but its mode is TRANSACTIONAL, which writes the record in"
          + " the body's database transaction so that both commit or neither does; Redis cannot join that"
          + " transaction. Set mode = Mode.CLAIM (the claim is taken in Redis before the body, the outcome stored"
          + " after it), or remove store = Store.REDIS to keep the record with the body's database writes."),
  STORE_REDIS_PARKING(
      "IDEM-151",
      "%s keeps its records in Redis (store = Store.REDIS) but sets %s = PARK: parking keeps an OUTCOME_UNKNOWN record"
          + " in the database until an operator resolves it, and a Redis-only command has no such record (its claim"
          + " simply expires). Remove %s, or remove store = Store.REDIS if the key must never run twice."),
  STORE_REDIS_KEY_TIME(
      "IDEM-152",
      "%s keeps its records in Redis (store = Store.REDIS) but sets keyTime, which files records into the database's"
          + " day partitions; Redis expires each key on its own. Remove keyTime."),
  STORE_REDIS_BATCH(
      "IDEM-153",
      "Batch handler %s sets store = Store.REDIS, but a batch claims its messages in the database in one"
          + " transaction with the handler's writes, so that a failure rolls both back and the broker redelivers."
          + " Remove store, or handle one message per call with a Redis-only CLAIM command."),
  // Keys derived from the payload within a window: IDEM-154..158.
  WINDOW_WITH_KEY(
      "IDEM-154",
      "%s sets window, which derives its key from the caller's identity and the payload, but also marks parameter %s"
          + " @IdempotencyKey; a key is either sent by the caller or derived, not both. Remove @IdempotencyKey to"
          + " derive the key, or remove window (and identity) to use the caller's key."),
  WINDOW_IDENTITY_MISSING(
      "IDEM-155",
      "%s sets window = \"%s\" but %s. Set identity to the name of the parameter that identifies the caller (one of:"
          + " %s), e.g. identity = \"userId\"."),
  IDENTITY_WITHOUT_WINDOW(
      "IDEM-156",
      "%s sets identity = \"%s\", which only a command with a window uses. Set window (e.g. window = \"PT5S\") to"
          + " derive the key from that parameter and the payload, or remove identity."),
  WINDOW_WITH_RETENTION(
      "IDEM-157",
      "%s sets both window and retention; a window is the dedup window of a derived key, so it replaces retention."
          + " Remove retention."),
  WINDOW_WITH_KEY_TIME(
      "IDEM-158",
      "%s sets window and keyTime; keyTime reads the time from a key the caller sends, and a windowed command's key"
          + " is derived (the caller's identity and the payload's hash). Remove keyTime."),
  // Reading the record before the claim: IDEM-159..160.
  LOOKUP_FIRST_REDIS(
      "IDEM-159",
      "%s keeps its records in Redis (store = Store.REDIS) but sets lookupFirst, which reads the key's database record"
          + " before the claim; a Redis-only command has no database record, and its claim in Redis already answers a"
          + " retry in one round trip. Remove lookupFirst."),
  LOOKUP_FIRST_BATCH(
      "IDEM-160",
      "Batch handler %s sets lookupFirst, but a batch claims all its messages in one statement, which tells the"
          + " redelivered ones apart already. Remove lookupFirst."),
  KEY_TIME_TYPE(
      "IDEM-080",
      "keyTime = %s reads the time from the key's first part, but %s has type %s. Make the first @IdempotencyKey"
          + " the id that carries the time: %s; or remove keyTime."),
  RESULT_WRAPPER_RAW(
      "IDEM-070",
      "%s returns the raw type IdempotentResult. Declare the result it wraps, e.g. IdempotentResult<Receipt>: that"
          + " is the type idem stores and replays."),
  RESULT_WRAPPER_ARGUMENT(
      "IDEM-071",
      "%s returns %s, but IdempotentResult must wrap a concrete type, which idem stores and replays: not a"
          + " wildcard, a type variable or another IdempotentResult. Declare e.g. IdempotentResult<Receipt>."),
  TRANSITION_STATE_UNREACHED(
      "IDEM-120",
      "No @StateTransition of %s starts from or leads to state %s of %s, so it is not part of the state machine"
          + " drawn for %s. Add a transition for it if it should be reachable; ignore this warning if another"
          + " interface moves %s there.",
      Diagnostic.Kind.WARNING),

  // The transactional outbox (@OutboxEvent): IDEM-130..139.
  OUTBOX_DESTINATION_INVALID(
      "IDEM-130",
      "@OutboxEvent(destination = \"%s\") on %s is not a destination: write the exchange, topic or subject the"
          + " event goes to, 1 to 255 characters without blanks around it, e.g. destination = \"orders\"."),
  OUTBOX_PARAMETERS(
      "IDEM-131",
      "@OutboxEvent method %s takes %s. Take the event's payload, and optionally a second parameter"
          + " Map<String, String> of headers: void orderCreated(OrderCreated event) or"
          + " void orderCreated(OrderCreated event, Map<String, String> headers)."),
  OUTBOX_RETURN_TYPE(
      "IDEM-132",
      "@OutboxEvent method %s returns %s. Return void, or String to get the event's message id."),
  OUTBOX_PAYLOAD_NOT_REPLAYABLE(
      "IDEM-133",
      "The payload %s of @OutboxEvent method %s would not reach consumers as it was: at %s, %s. Consumers read it"
          + " back as JSON like a stored result; %s."),
  OUTBOX_KEY_PATH(
      "IDEM-134",
      "@OutboxEvent(key = \"%s\") on %s does not name a property of the payload %s: %s. Write accessor names of"
          + " the payload separated by dots, e.g. key = \"orderId\" or key = \"customer.id\", or leave key out."),
  OUTBOX_KEY_TYPE(
      "IDEM-135",
      "@OutboxEvent(key = \"%s\") on %s leads to a value of type %s. A partition key is written as text: point it"
          + " at a String, UUID, an integral number (or its wrapper, BigInteger) or an enum."),
  OUTBOX_MIXED(
      "IDEM-136",
      "%s is %s in interface %s, whose other methods are @OutboxEvent. An outbox interface is implemented by"
          + " <Interface>_Outbox, which only writes events: annotate every abstract method @OutboxEvent (give it"
          + " a default body otherwise), and move commands, transitions and jobs to an interface of their own."),
  OUTBOX_TYPE_INVALID(
      "IDEM-137",
      "@OutboxEvent(type = \"%s\") on %s is not an event type: write 1 to 255 characters without blanks around"
          + " them, e.g. type = \"OrderCreated\", or leave type out to use the payload's simple name."),
  OUTBOX_INTERFACE_GENERIC(
      "IDEM-138",
      "Interface %s declares type parameters, so idem cannot generate one %s_Outbox for it. Declare the"
          + " @OutboxEvent methods on a non-generic interface."),

  // The processor and its environment: IDEM-9xx.
  PROCESSOR_FAILED(
      "IDEM-900",
      "idem failed while processing %s: %s: %s (at %s). This is a bug in idem, not in your code: please report it"
          + " to the idem project with this message and the declaration of %s. Nothing was generated for it."),
  TYPE_NEVER_GENERATED(
      "IDEM-901",
      "Interface %s names %s, a type that no source file declares and no annotation processor generated, so idem cannot"
          + " generate its implementation. Fix the name or its import, or add the dependency or annotation"
          + " processor that provides %s."),
  RUNTIME_MISSING(
      "IDEM-902",
      "idem cannot generate the implementation of %s: the idem runtime (%s) is not on the class path, and the"
          + " generated class calls it. Add dev.idem:idem-runtime:%s to the dependencies."),
  RUNTIME_VERSION_MISMATCH(
      "IDEM-903",
      "The idem runtime on the class path is idem %s, but this annotation processor is idem %s; generated code"
          + " runs only with the runtime of its own idem version. Use dev.idem:idem-runtime:%s, or the processor of"
          + " version %s, so that both are the same version.");

  private final String tag;
  private final String format;
  private final Diagnostic.Kind kind;

  Message(String tag, String format) {
    this(tag, format, Diagnostic.Kind.ERROR);
  }

  Message(String tag, String format, Diagnostic.Kind kind) {
    this.tag = tag;
    this.format = format;
    this.kind = kind;
  }

  String tag() {
    return tag;
  }

  Diagnostic.Kind kind() {
    return kind;
  }

  String format(Object... args) {
    return "[" + tag + "] " + String.format(format, args);
  }
}
