using System;

namespace App
{
    /// <summary>Says hello.</summary>
    public class Greeter
    {
        public string Name { get; set; }

        public string Greet(string who)
        {
            return $"Hello {who}, I am {Name}";
        }
    }
}
