/** idem inside the application's Jakarta Persistence transaction: {@link dev.idem.jpa.JpaTransactions}. */
package dev.idem.jpa;
