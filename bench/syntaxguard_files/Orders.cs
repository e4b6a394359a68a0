using System;
using System.Collections.Generic;
using System.Linq;

namespace Shop.Orders
{
    public enum State { Open, Paid, Shipped }

    public record Line(string Sku, int Quantity, decimal Price);

    /// <summary>An order and its lines.</summary>
    public class Order
    {
        private readonly List<Line> _lines = new();

        public Guid Id { get; } = Guid.NewGuid();
        public State State { get; private set; } = State.Open;

        public decimal Total => _lines.Sum(l => l.Quantity * l.Price);

        public void Add(string sku, int quantity, decimal price)
        {
            if (State != State.Open)
            {
                throw new InvalidOperationException($"order {Id} is {State}");
            }
            _lines.Add(new Line(sku, quantity, price));
        }

        public void Pay()
        {
            State = State switch
            {
                State.Open => State.Paid,
                _ => throw new InvalidOperationException("only an open order can be paid"),
            };
        }

        public override string ToString()
        {
            var names = string.Join(", ", _lines.Select(l => $"{l.Quantity}x{l.Sku}"));
            return $"Order {Id}: {names} = {Total:C}";
        }
    }

    public interface IOrderStore
    {
        Order Find(Guid id);
        void Save(Order order);
    }
}
